/**
 * The panel's dialogs: confirmation of destructive actions and the snippet form.
 */
import { Dialog, showDialog } from '@jupyterlab/apputils';
import { Widget } from '@lumino/widgets';

/** Ask before an action that changes the outside world or deletes records. */
export async function confirmAction(
  title: string,
  body: string,
  label: string
): Promise<boolean> {
  const result = await showDialog({
    title,
    body,
    buttons: [Dialog.cancelButton(), Dialog.warnButton({ label })]
  });
  return result.button.accept;
}

export interface ISnippetAnswer {
  name: string;
  description: string;
}

/** The snippet name rule of the runtime, checked early so the user can fix it in place. */
export const SNIPPET_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,127}$/;

class SnippetForm extends Widget {
  constructor(suggestion: string, description: string) {
    super();
    this.addClass('jp-CodeModePanel-form');
    const nameLabel = document.createElement('label');
    nameLabel.textContent = 'Name (letters, digits, _ . -)';
    this._name = document.createElement('input');
    this._name.className = 'jp-mod-styled';
    this._name.name = 'snippet-name';
    this._name.value = suggestion;
    this._name.placeholder = 'e.g. open_prs_summary';
    nameLabel.appendChild(this._name);
    const descriptionLabel = document.createElement('label');
    descriptionLabel.textContent =
      'Description (what it does, for codemode.search)';
    this._description = document.createElement('textarea');
    this._description.className = 'jp-mod-styled';
    this._description.name = 'snippet-description';
    this._description.rows = 3;
    this._description.value = description;
    descriptionLabel.appendChild(this._description);
    this.node.append(nameLabel, descriptionLabel);
  }

  getValue(): ISnippetAnswer {
    return {
      name: this._name.value.trim(),
      description: this._description.value.trim()
    };
  }

  protected onAfterAttach(): void {
    this._name.select();
  }

  private _name: HTMLInputElement;
  private _description: HTMLTextAreaElement;
}

/** A name suggestion from the code's first line: its words joined by underscores. */
export function suggestSnippetName(firstLine: string): string {
  const words = firstLine.replace(/#.*/, '').match(/[A-Za-z][A-Za-z0-9]*/g);
  return (words ?? []).slice(0, 4).join('_').slice(0, 40);
}

/** Ask for a snippet's name and description; null when cancelled. */
export async function askSnippet(
  firstLine: string
): Promise<ISnippetAnswer | null> {
  let suggestion = suggestSnippetName(firstLine);
  let description = '';
  for (;;) {
    const result = await showDialog<ISnippetAnswer>({
      title: 'Save as snippet',
      body: new SnippetForm(suggestion, description),
      buttons: [Dialog.cancelButton(), Dialog.okButton({ label: 'Save' })],
      focusNodeSelector: 'input'
    });
    if (!result.button.accept || result.value === null) {
      return null;
    }
    if (SNIPPET_NAME.test(result.value.name)) {
      return result.value;
    }
    suggestion = result.value.name;
    description = result.value.description;
    await showDialog({
      title: 'Invalid snippet name',
      body: `“${result.value.name}” is not a snippet name: start with a letter, then use letters, digits, “_”, “.” or “-” (at most 128 characters).`,
      buttons: [Dialog.okButton({ label: 'Edit name' })]
    });
  }
}
