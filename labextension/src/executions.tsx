/**
 * The Executions tab: pending approvals, the execution list, and each execution's
 * journal timeline with its actions (approve, reject, roll back, save, delete).
 */
import { caretDownIcon, caretRightIcon } from '@jupyterlab/ui-components';
import * as React from 'react';

import { askSnippet, confirmAction } from './dialogs';
import {
  canApprove,
  canDelete,
  canRollback,
  canSaveSnippet,
  displayState,
  formatAge,
  pendingCall,
  plural,
  statusLabel
} from './format';
import {
  IExecutionDetail,
  IExecutionSummary,
  IJournalEntry,
  IPendingAction,
  IValue,
  ValueField
} from './messages';
import { CodeModeModel } from './model';
import type { IViewProps } from './widget';

/** Re-render every few seconds so that ages ("12 s ago") stay true. */
function useNow(intervalMs = 5000): number {
  const [now, setNow] = React.useState(Date.now());
  React.useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

export function ExecutionsTab({ model }: IViewProps): React.ReactElement {
  const now = useNow();
  if (!model.loaded) {
    return <div className="jp-CodeModePanel-placeholder">Loading…</div>;
  }
  return (
    <>
      {model.pending.length > 0 && (
        <section className="jp-CodeModePanel-pending">
          <h3 className="jp-CodeModePanel-heading">
            Waiting for approval ({model.pending.length})
          </h3>
          {model.pending.map(action => (
            <PendingCard
              key={`${action.execution_id}/${action.seq}`}
              model={model}
              action={action}
            />
          ))}
        </section>
      )}
      {model.executions.length === 0 ? (
        <div className="jp-CodeModePanel-placeholder">
          No executions yet. Run a cell in this notebook: each cell is one
          execution, journaled here.
        </div>
      ) : (
        <ul className="jp-CodeModePanel-executions">
          {model.executions.map(execution => (
            <ExecutionRow
              key={execution.id}
              model={model}
              execution={execution}
              now={now}
            />
          ))}
        </ul>
      )}
    </>
  );
}

/**
 * How long Approve and Reject stay disabled after the call they name appears. A click aimed at
 * the call shown before (the second click of a double-click on Approve, or a click as a refresh
 * replaces the row) cannot land on a call the person has not had time to read.
 */
export const ARMING_DELAY_MS = 600;

/** False until `ARMING_DELAY_MS` after `key` (the call a button names) was first rendered. */
function useArmed(key: string | null): boolean {
  const [armed, setArmed] = React.useState<string | null>(null);
  React.useEffect(() => {
    if (key === null) {
      return;
    }
    const timer = setTimeout(() => setArmed(key), ARMING_DELAY_MS);
    return () => clearTimeout(timer);
  }, [key]);
  return key !== null && armed === key;
}

function PendingCard(props: {
  model: CodeModeModel;
  action: IPendingAction;
}): React.ReactElement {
  const { model, action } = props;
  const id = action.execution_id;
  const busy = model.isBusy(`approve:${id}`) || model.isBusy(`reject:${id}`);
  const armed = useArmed(`${id}:${action.seq}`);
  const wait = armed ? undefined : 'This call just appeared: read it first';
  const byModel = model.executions.some(e => e.id === id && e.via_tool);
  return (
    <div className="jp-CodeModePanel-pendingCard" data-execution-id={id}>
      <div className="jp-CodeModePanel-call">
        <span className="jp-CodeModePanel-seq">#{action.seq}</span>
        <code>{action.path}</code>
        {byModel && <ModelTag />}
      </div>
      {/* The whole arguments are a click away (Show all), as in the journal below: a program can
          pad an argument so that what matters comes after any cut (review 15 M3). */}
      <ValueView
        label="arguments"
        value={action.args}
        full={model.fullValue(id, action.seq, 'args')}
        onLoadAll={() => void model.loadFullValue(id, action.seq, 'args')}
      />
      <div className="jp-CodeModePanel-actions">
        <button
          className="jp-CodeModePanel-button jp-mod-accept"
          disabled={busy || !armed}
          title={wait ?? `Approve call #${action.seq} (${action.path})`}
          onClick={() => void model.approve(id, action.seq)}
        >
          {model.isBusy(`approve:${id}`) ? 'Approving…' : 'Approve'}
        </button>
        <button
          className="jp-CodeModePanel-button jp-mod-reject"
          disabled={busy || !armed}
          title={wait}
          onClick={() => void model.reject(id, action.seq)}
        >
          Reject
        </button>
        <button
          className="jp-CodeModePanel-link"
          onClick={() => void model.select(id)}
        >
          Show execution
        </button>
      </div>
    </div>
  );
}

/** Marks an execution a model started through the codemode tool: its call is the model's words. */
function ModelTag(): React.ReactElement {
  return (
    <span
      className="jp-CodeModePanel-tag jp-mod-model"
      title="Started by a model through the codemode tool (codemode mcp), not by a cell of this notebook: read its call before approving"
    >
      model
    </span>
  );
}

function StatusBadge({
  status
}: {
  status: IExecutionSummary['status'];
}): React.ReactElement {
  return (
    <span
      className={`jp-CodeModePanel-badge jp-mod-status-${status}`}
      data-status={status}
    >
      {statusLabel(status)}
    </span>
  );
}

function ExecutionRow(props: {
  model: CodeModeModel;
  execution: IExecutionSummary;
  now: number;
}): React.ReactElement {
  const { model, execution, now } = props;
  const selected = model.selectedId === execution.id;
  const Caret = selected ? caretDownIcon : caretRightIcon;
  return (
    <li
      className={`jp-CodeModePanel-execution${selected ? ' jp-mod-selected' : ''}`}
      data-execution-id={execution.id}
      data-status={execution.status}
    >
      <button
        className="jp-CodeModePanel-executionHead"
        aria-expanded={selected}
        onClick={() => void model.select(selected ? null : execution.id)}
      >
        <Caret.react tag="span" className="jp-CodeModePanel-caret" />
        <StatusBadge status={execution.status} />
        {execution.via_tool && <ModelTag />}
        <code
          className="jp-CodeModePanel-firstLine"
          title={execution.first_line}
        >
          {execution.first_line || '(empty)'}
        </code>
        <span
          className="jp-CodeModePanel-age"
          title={new Date(execution.created_at).toLocaleString()}
        >
          {formatAge(execution.created_at, now)}
        </span>
      </button>
      <div className="jp-CodeModePanel-executionMeta">
        {plural(execution.calls, 'call')} ·{' '}
        {plural(execution.passes, 'pass', 'passes')}
        {execution.pending > 0 && ` · ${execution.pending} pending`}
        {execution.error && execution.status !== 'rejected' && (
          <span className="jp-CodeModePanel-errorText" title={execution.error}>
            {' '}
            · {execution.error_type ?? 'Error'}
          </span>
        )}
      </div>
      {selected && <ExecutionDetail model={model} execution={execution} />}
    </li>
  );
}

function ExecutionDetail(props: {
  model: CodeModeModel;
  execution: IExecutionSummary;
}): React.ReactElement {
  const { model, execution } = props;
  const detail = model.detail;
  return (
    <div className="jp-CodeModePanel-detail">
      <ExecutionActions model={model} execution={detail ?? execution} />
      {detail === null ? (
        <div className="jp-CodeModePanel-placeholder">Loading journal…</div>
      ) : (
        <>
          <pre className="jp-CodeModePanel-code">{detail.code}</pre>
          <Outcome model={model} detail={detail} />
          <Journal model={model} detail={detail} />
        </>
      )}
    </div>
  );
}

function ExecutionActions(props: {
  model: CodeModeModel;
  execution: IExecutionSummary;
}): React.ReactElement {
  const { model, execution } = props;
  const id = execution.id;
  const busy = (key: string) => model.isBusy(`${key}:${id}`);
  // Approve and Reject name the call this view shows: the pending entry of the journal below
  // (until the journal has loaded there is no call to name, so the buttons wait).
  const shown = pendingCall(execution);
  const armed = useArmed(shown === null ? null : `${id}:${shown.seq}`);
  return (
    <div className="jp-CodeModePanel-actions">
      {canApprove(execution) && (
        <>
          <button
            className="jp-CodeModePanel-button jp-mod-accept"
            disabled={
              shown === null || !armed || busy('approve') || busy('reject')
            }
            title={
              shown === null
                ? 'Loading the pending call…'
                : armed
                  ? `Approve call #${shown.seq} (${shown.path})`
                  : 'This call just appeared: read it first'
            }
            onClick={() => {
              if (shown !== null) {
                void model.approve(id, shown.seq);
              }
            }}
          >
            {busy('approve') ? 'Approving…' : 'Approve'}
          </button>
          <button
            className="jp-CodeModePanel-button jp-mod-reject"
            disabled={
              shown === null || !armed || busy('approve') || busy('reject')
            }
            onClick={() => {
              if (shown !== null) {
                void model.reject(id, shown.seq);
              }
            }}
          >
            Reject
          </button>
        </>
      )}
      {canRollback(execution) && (
        <button
          className="jp-CodeModePanel-button"
          disabled={busy('rollback')}
          onClick={async () => {
            const ok = await confirmAction(
              'Roll back this execution?',
              `Each applied call that has a revert is undone, newest first (${plural(execution.revertible, 'call')}).`,
              'Roll back'
            );
            if (ok) {
              await model.rollback(id);
            }
          }}
        >
          {busy('rollback') ? 'Rolling back…' : 'Roll back'}
        </button>
      )}
      {canSaveSnippet(execution) && (
        <button
          className="jp-CodeModePanel-button"
          disabled={busy('save')}
          onClick={async () => {
            const answer = await askSnippet(execution.first_line);
            if (answer !== null) {
              await model.saveSnippet(id, answer.name, answer.description);
            }
          }}
        >
          Save as snippet
        </button>
      )}
      {canDelete(execution) && (
        <button
          className="jp-CodeModePanel-button jp-mod-reject"
          disabled={busy('delete')}
          onClick={async () => {
            const ok = await confirmAction(
              'Delete this execution?',
              'Its journal is deleted; applied actions are not undone (roll back first to undo them).',
              'Delete'
            );
            if (ok) {
              await model.deleteExecution(id);
            }
          }}
        >
          Delete
        </button>
      )}
    </div>
  );
}

function Outcome(props: {
  model: CodeModeModel;
  detail: IExecutionDetail;
}): React.ReactElement | null {
  const { model, detail } = props;
  return (
    <div className="jp-CodeModePanel-outcome">
      {detail.result !== null && (
        <ValueView
          label="result"
          value={detail.result}
          full={model.fullValue(detail.id, null, 'result')}
          onLoadAll={() => void model.loadFullValue(detail.id, null, 'result')}
          open
        />
      )}
      {detail.error && (
        <div className="jp-CodeModePanel-errorBox">
          <strong>{detail.error_type ?? 'Error'}:</strong> {detail.error}
        </div>
      )}
      {detail.logs.length > 0 && (
        <details className="jp-CodeModePanel-logs">
          <summary>
            output ({plural(detail.logs.length + detail.logs_omitted, 'line')})
          </summary>
          <pre>
            {detail.logs_omitted > 0 &&
              `… ${detail.logs_omitted} earlier lines omitted\n`}
            {detail.logs.join('\n')}
          </pre>
        </details>
      )}
    </div>
  );
}

function Journal(props: {
  model: CodeModeModel;
  detail: IExecutionDetail;
}): React.ReactElement {
  const { model, detail } = props;
  if (detail.entries.length === 0) {
    return (
      <div className="jp-CodeModePanel-placeholder">
        No connector calls were journaled.
      </div>
    );
  }
  return (
    <ol className="jp-CodeModePanel-journal" aria-label="Journal">
      {detail.entries.map(entry => (
        <JournalEntry
          key={entry.seq}
          model={model}
          detail={detail}
          entry={entry}
        />
      ))}
    </ol>
  );
}

function JournalEntry(props: {
  model: CodeModeModel;
  detail: IExecutionDetail;
  entry: IJournalEntry;
}): React.ReactElement {
  const { model, detail, entry } = props;
  const shown = displayState(entry, detail.passes);
  const load = (field: ValueField) => () =>
    void model.loadFullValue(detail.id, entry.seq, field);
  return (
    <li
      className={`jp-CodeModePanel-entry jp-mod-${shown}`}
      data-seq={entry.seq}
      data-state={shown}
    >
      <div className="jp-CodeModePanel-entryHead">
        <span className="jp-CodeModePanel-seq">#{entry.seq}</span>
        <code className="jp-CodeModePanel-path">
          {entry.step ? `step ${JSON.stringify(entry.method)}` : entry.path}
        </code>
        <span className={`jp-CodeModePanel-state jp-mod-${shown}`}>
          {shown}
        </span>
        <span
          className="jp-CodeModePanel-pass"
          title={
            shown === 'replayed'
              ? `Executed in pass ${entry.pass_number}; later passes replayed the recorded result.`
              : `Pass ${entry.pass_number} made this call.`
          }
        >
          pass {entry.pass_number}
        </span>
        {entry.requires_approval && (
          <span className="jp-CodeModePanel-tag" title="Needs approval">
            approval
          </span>
        )}
      </div>
      {!entry.step && (
        // A step has no arguments (its name is in the head): no "name null" row.
        <ValueView
          label="arguments"
          value={entry.args}
          full={model.fullValue(detail.id, entry.seq, 'args')}
          onLoadAll={load('args')}
        />
      )}
      {entry.result !== null && (
        <ValueView
          label={entry.step ? 'value' : 'result'}
          value={entry.result}
          full={model.fullValue(detail.id, entry.seq, 'result')}
          onLoadAll={load('result')}
        />
      )}
      {entry.result === null &&
        entry.ephemeral &&
        entry.state === 'applied' && (
          <div className="jp-CodeModePanel-note">
            result not stored: this method runs again on every pass
          </div>
        )}
      {entry.error && shown !== 'rejected' && (
        <div className="jp-CodeModePanel-errorText">{entry.error}</div>
      )}
    </li>
  );
}

/** A value: its one-line summary, expandable to the text (and to all of it on request). */
export function ValueView(props: {
  label: string;
  value: IValue;
  full?: IValue | null;
  onLoadAll?: () => void;
  open?: boolean;
}): React.ReactElement {
  const { label, value, full, onLoadAll } = props;
  const [open, setOpen] = React.useState(props.open ?? false);
  const shown = full ?? value;
  return (
    <div className="jp-CodeModePanel-value" data-label={label}>
      <button
        className="jp-CodeModePanel-valueHead"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        {open ? (
          <caretDownIcon.react tag="span" className="jp-CodeModePanel-caret" />
        ) : (
          <caretRightIcon.react tag="span" className="jp-CodeModePanel-caret" />
        )}
        <span className="jp-CodeModePanel-valueLabel">{label}</span>
        {!open && (
          <code className="jp-CodeModePanel-summary">{value.summary}</code>
        )}
      </button>
      {open && (
        <>
          <pre className="jp-CodeModePanel-valueText">{shown.text}</pre>
          {shown.truncated && (
            <div className="jp-CodeModePanel-note">
              showing {Math.max(0, shown.text.length - 1).toLocaleString()} of{' '}
              {shown.chars.toLocaleString()} characters
              {onLoadAll && (
                <>
                  {' '}
                  <button className="jp-CodeModePanel-link" onClick={onLoadAll}>
                    Show all
                  </button>
                </>
              )}
            </div>
          )}
        </>
      )}
    </div>
  );
}
