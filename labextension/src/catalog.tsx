/**
 * The Snippets and Connectors tabs: saved snippets, and the connectors' methods with
 * search and their Python declarations.
 */
import * as React from 'react';

import { confirmAction } from './dialogs';
import { plural } from './format';
import { IConnectorInfo, ISnippetInfo } from './messages';
import { CodeModeModel } from './model';
import type { IViewProps } from './widget';

export function SnippetsTab({ model }: IViewProps): React.ReactElement {
  if (model.snippets.length === 0) {
    return (
      <div className="jp-CodeModePanel-placeholder">
        No snippets yet. Save a completed execution as a snippet to run it again
        with <code>codemode.run(name, input)</code>.
      </div>
    );
  }
  return (
    <ul className="jp-CodeModePanel-snippets">
      {model.snippets.map(snippet => (
        <SnippetCard key={snippet.name} model={model} snippet={snippet} />
      ))}
    </ul>
  );
}

function SnippetCard(props: {
  model: CodeModeModel;
  snippet: ISnippetInfo;
}): React.ReactElement {
  const { model, snippet } = props;
  const preview = snippet.code.text.split('\n').slice(0, 8);
  const more = snippet.code.text.split('\n').length - preview.length;
  return (
    <li className="jp-CodeModePanel-snippet" data-snippet={snippet.name}>
      <div className="jp-CodeModePanel-snippetHead">
        <code className="jp-CodeModePanel-snippetName">{snippet.name}</code>
        {snippet.connectors.map(c => (
          <span key={c} className="jp-CodeModePanel-tag">
            {c}
          </span>
        ))}
        <button
          className="jp-CodeModePanel-button jp-mod-reject jp-mod-small"
          disabled={model.isBusy(`delete-snippet:${snippet.name}`)}
          onClick={async () => {
            const ok = await confirmAction(
              `Delete snippet '${snippet.name}'?`,
              `codemode.run('${snippet.name}', …) will stop working.`,
              'Delete'
            );
            if (ok) {
              await model.deleteSnippet(snippet.name);
            }
          }}
        >
          Delete
        </button>
      </div>
      {snippet.description && (
        <div className="jp-CodeModePanel-description">
          {snippet.description}
        </div>
      )}
      <pre className="jp-CodeModePanel-code">
        {preview.join('\n')}
        {more > 0 && `\n… ${plural(more, 'more line')}`}
      </pre>
    </li>
  );
}

export function ConnectorsTab({ model }: IViewProps): React.ReactElement {
  const [query, setQuery] = React.useState(model.searchQuery);
  React.useEffect(() => {
    const timer = setTimeout(() => {
      if (query !== model.searchQuery) {
        void model.search(query);
      }
    }, 200);
    return () => clearTimeout(timer);
  }, [query]);
  const searching = query.trim() !== '' && model.searchResults !== null;
  return (
    <>
      <input
        className="jp-CodeModePanel-search"
        type="search"
        placeholder="Search methods and snippets (e.g. “create an item”)"
        aria-label="Search methods and snippets"
        value={query}
        onChange={event => setQuery(event.target.value)}
      />
      {searching ? (
        <SearchResults model={model} />
      ) : model.connectorInfo === null ? (
        <div className="jp-CodeModePanel-placeholder">Loading connectors…</div>
      ) : model.connectorInfo.length === 0 ? (
        <div className="jp-CodeModePanel-placeholder">
          No connectors are configured. Add them in codemode.toml beside the
          notebook, or with connect(...) in a %%host cell.
        </div>
      ) : (
        <ul className="jp-CodeModePanel-connectors">
          {model.connectorInfo.map(connector => (
            <ConnectorCard
              key={connector.name}
              model={model}
              connector={connector}
            />
          ))}
        </ul>
      )}
    </>
  );
}

function Described(props: {
  model: CodeModeModel;
  target: string;
}): React.ReactElement | null {
  const described = props.model.described;
  if (described === null || described.target !== props.target) {
    return null;
  }
  if (described.error) {
    return <div className="jp-CodeModePanel-errorText">{described.error}</div>;
  }
  if (described.output === null) {
    return <div className="jp-CodeModePanel-placeholder">Loading…</div>;
  }
  if (described.output.kind === 'not_found') {
    const near = described.output.suggestions ?? [];
    return (
      <div className="jp-CodeModePanel-errorText">
        {described.output.error ?? `${props.target} not found`}
        {near.length > 0 ? ` Nearest: ${near.join(', ')}` : ''}
      </div>
    );
  }
  return (
    <pre className="jp-CodeModePanel-code jp-CodeModePanel-types">
      {described.output.types}
    </pre>
  );
}

function ConnectorCard(props: {
  model: CodeModeModel;
  connector: IConnectorInfo;
}): React.ReactElement {
  const { model, connector } = props;
  return (
    <li className="jp-CodeModePanel-connector" data-connector={connector.name}>
      <button
        className="jp-CodeModePanel-connectorHead"
        title="Show the Python declarations of this connector"
        onClick={() => void model.describe(connector.name)}
      >
        <code>{connector.name}</code>
        <span className="jp-CodeModePanel-count">
          {connector.unavailable
            ? 'unavailable'
            : plural(connector.methods.length, 'method')}
        </span>
      </button>
      {connector.unavailable && (
        <div className="jp-CodeModePanel-description jp-CodeModePanel-unavailable">
          {connector.unavailable}
        </div>
      )}
      {connector.instructions && (
        <div className="jp-CodeModePanel-description">
          {connector.instructions}
        </div>
      )}
      <Described model={model} target={connector.name} />
      <ul className="jp-CodeModePanel-methods">
        {connector.methods.map(method => (
          <li key={method.name} data-method={method.path}>
            <button
              className="jp-CodeModePanel-method"
              title="Show the Python declaration"
              onClick={() => void model.describe(method.path)}
            >
              <code>.{method.name}()</code>
              {method.requires_approval && (
                <span className="jp-CodeModePanel-tag">approval</span>
              )}
              {method.revertible && (
                <span className="jp-CodeModePanel-tag">revertible</span>
              )}
              <span className="jp-CodeModePanel-description">
                {method.description}
              </span>
            </button>
            <Described model={model} target={method.path} />
          </li>
        ))}
      </ul>
    </li>
  );
}

function SearchResults({ model }: IViewProps): React.ReactElement {
  const output = model.searchResults;
  if (output === null || output.results.length === 0) {
    return (
      <div className="jp-CodeModePanel-placeholder">
        Nothing matches “{model.searchQuery}”.
      </div>
    );
  }
  return (
    <ul className="jp-CodeModePanel-methods">
      {output.results.map(result => (
        <li key={`${result.kind}:${result.path}`} data-method={result.path}>
          <button
            className="jp-CodeModePanel-method"
            onClick={() => void model.describe(result.path)}
          >
            <code>
              {result.kind === 'snippet'
                ? `snippet ${result.path}`
                : result.path}
            </code>
            {result.requires_approval && (
              <span className="jp-CodeModePanel-tag">approval</span>
            )}
            <span className="jp-CodeModePanel-description">
              {result.description}
            </span>
          </button>
          <Described model={model} target={result.path} />
        </li>
      ))}
      {output.truncated && (
        <li className="jp-CodeModePanel-note">
          {output.total - output.results.length} more; refine the query.
        </li>
      )}
    </ul>
  );
}
