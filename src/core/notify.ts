/**
 * A reference code's notification choices: the one list of each, read by the rules (rules.ts) and by the reference
 * code form, in the order it offers them. A module of its own, so that the form's chunk carries these lists only.
 */

/** `notify.notifyLanguage` values. */
export const NOTIFY_LANGUAGES = ['English', 'Arabic'] as const;
export type NotifyLanguage = (typeof NOTIFY_LANGUAGES)[number];

/** `notify.notifyMethod` values; `BOTH` is the default. In the order the reference code form offers them. */
export const NOTIFY_METHODS = ['BOTH', 'SMS', 'EMAIL'] as const;
export type NotifyMethod = (typeof NOTIFY_METHODS)[number];
