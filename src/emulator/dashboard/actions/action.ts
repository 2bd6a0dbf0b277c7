// What a dashboard action is: one same-origin form POST under /_dashboard, declared with the
// page it returns to and the operation it calls (the control plane's own, routes/control.ts).
// index.ts registers each as its own route; the CSRF check and error pages are made there once.
import type { z } from 'zod';
import type { Mode } from '../../../shared/constants.js';
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

export const integer = (form: Form, name: string) => {
  const value = text(form, name);
  if (!/^\d+$/.test(value)) throw new HttpError(422, `${name.replace(/_/g, ' ')} must be a whole number`);
  return Number(value);
};

export const checked = <S extends z.ZodType>(schema: S, value: unknown): z.output<S> => {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new HttpError(422, `${issue.path.join('.') || 'form'}: ${issue.message}`);
  }
  return result.data;
};
