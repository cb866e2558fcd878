/**
 * Renders the Action vocabulary (src/engine/vocabulary.ts): link, call, form, download, upload, copy, widget.
 * The form, upload and widget dialogs load on first use.
 */
export { ActionBar, ActionButton, type ActionButtonProps } from './ActionButton';
export { EngineDialog, type EngineDialogProps } from './EngineDialog';
export { ActionForm, type ActionFormProps } from './FormAction';
export { copyText } from './copy';
