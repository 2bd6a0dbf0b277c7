// A form that failed comes back as it was sent: the page is drawn again with every value kept,
// its dialog open, and the error next to the field it is about. Pages ask here for
// each field's value and error by the form's action path.
import type { Failed, View } from './layout.js';

export type { Failed };

const failedHere = (v: View, action: string) => (v.failed?.action === action ? v.failed : undefined);

/** Whether the form posting to `action` failed on this page (its dialog opens again). */
export const isFailed = (v: View, action: string) => failedHere(v, action) !== undefined;

/** A dialog's attributes: open (and shown as a modal by the script) when its form failed. */
export function reopened(v: View, action: string): Record<string, string> {
  return isFailed(v, action) ? { open: '', 'data-show': '' } : {};
}

/** A field's value as sent when its form failed, otherwise `initial`. */
export function kept(v: View, action: string, name: string, initial: string): string {
  const failed = failedHere(v, action);
  return failed ? (failed.values[name]?.[0] ?? '') : initial;
}

/** Whether a checkbox is checked: as sent when its form failed, otherwise `initial`. */
export function keptChecked(v: View, action: string, name: string, value: string, initial: boolean): boolean {
  const failed = failedHere(v, action);
  return failed ? (failed.values[name] ?? []).includes(value) : initial;
}

const errorId = (action: string, field: string) => `error-${action.replace(/[^\w]+/g, '-')}-${field}`;

/** The attributes that tie a field to its error (aria-invalid, aria-describedby), when it has one. */
export function invalidAttrs(v: View, action: string, field: string): Record<string, string> {
  const failed = failedHere(v, action);
  if (failed?.field !== field) return {};
  return { 'aria-invalid': 'true', 'aria-describedby': errorId(action, field) };
}

/** The error message of `field`, next to it; nothing when it has none. */
export function FieldError({ v, action, field }: { v: View; action: string; field: string }) {
  const failed = failedHere(v, action);
  if (failed?.field !== field) return null;
  return (
    <p class="field-error" id={errorId(action, field)}>
      {failed.message}
    </p>
  );
}

/** The error of a form as a whole (no one field), inside the form (its dialog). */
export function FormError({ v, action }: { v: View; action: string }) {
  const failed = failedHere(v, action);
  if (!failed || failed.field !== null) return null;
  return (
    <p class="error" role="alert">
      {failed.message}
    </p>
  );
}
