/**
 * The POS form's fields, the first row of the forms' table (fields.ts): apart from it, because the element's first
 * frame shows this form and carries nothing of the table's other rows.
 */
import type { FieldSpec } from './field-spec.js';

export const POS_FIELDS = [{ name: 'sn', wire: 'sn', autocomplete: 'off', maxlength: 32, hint: 'sn' }] as const satisfies readonly FieldSpec<string>[];
