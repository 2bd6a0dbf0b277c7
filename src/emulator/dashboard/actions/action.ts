// What a dashboard action is: one same-origin form POST under /_dashboard, declared with the
// page it returns to and the operation it calls (the control plane's own, routes/control.ts).
// index.ts registers each as its own route; the CSRF check and error pages are made there once.
import type { z } from 'zod';
import type { Mode } from '../../../contract/constants.js';
import { HttpError } from '../../errors.js';
import type { State } from '../../state.js';
import type { Html, View } from '../layout.js';
import type { RequestLog } from '../requests.js';

export type Form = Record<string, string | File | (string | File)[]>;

/** An action's outcome: back to a page with a notice, or a page shown in answer (a secret shown once). */
export type Outcome = { notice: string; back?: string } | { page: (v: View) => Html };

export interface ActionInput {
  state: State;
  requests: RequestLog;
  form: Form;
  /** The mode of the page the form was on. */
  mode: Mode;
  /** A path parameter of the action's route (`:id`). */
  param: (name: string) => string;
}

export interface Action {
  /** Under /_dashboard, with Hono's `:name` parameters. */
  path: string;
  /** The page an error returns to. */
  back: string;
  /** The largest form accepted, bytes (FORM_LIMIT unless said). */
  limit?: number;
  handle: (input: ActionInput) => Outcome | Promise<Outcome>;
}

export const modeOf = (value: unknown): Mode => (value === 'live' ? 'live' : 'test');

export const text = (form: Form, name: string) => {
  const value = form[name];
  return typeof value === 'string' ? value.trim() : '';
};

/** A value a form cannot take: shown next to `field` (null: the form as a whole), in plain words. */
export class InvalidField extends HttpError {
  constructor(
    readonly field: string | null,
    message: string,
    status = 422,
  ) {
    super(status, message);
  }
}

/** A whole number of 0 or more; `label` is the field's name as the page shows it. */
export const integer = (form: Form, name: string, label: string) => {
  const value = text(form, name);
  if (!/^\d+$/.test(value)) throw new InvalidField(name, `${label}: a whole number such as 3600${value ? `, not ${value}` : ''}`);
  return Number(value);
};

/** zod's words for the usual problems, said plainly. */
function plainly(issue: z.core.$ZodIssue): string {
  if (issue.code === 'too_small' && issue.minimum === 1) return issue.origin === 'array' ? 'give at least one' : 'required';
  if (issue.code === 'invalid_type') return 'required';
  return issue.message;
}

/**
 * The form's values checked by the control plane's own schema; a problem is an InvalidField on
 * the field it is about, labelled as the page labels it (`labels.redirect_uris(1)` → "Redirect URI 2").
 */
export const checked = <S extends z.ZodType>(schema: S, value: unknown, labels: Record<string, (index?: number) => string> = {}): z.output<S> => {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const [field, index] = issue.path;
    const name = typeof field === 'string' ? field : null;
    const label = name ? (labels[name]?.(typeof index === 'number' ? index : undefined) ?? name.replace(/_/g, ' ')) : 'form';
    throw new InvalidField(name, `${label}: ${plainly(issue)}`);
  }
  return result.data;
};
