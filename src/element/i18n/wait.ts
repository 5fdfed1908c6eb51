/**
 * How long a payer is asked to wait, in the unit they would say it in: up to a minute in seconds, exactly; then
 * "about" so many minutes, then hours. A limit's window can end an hour away ("Try again in 3,443 seconds" reads as a
 * riddle): both catalogs word the same decision, made here.
 */
export type Wait = { unit: 'second' | 'minute' | 'hour'; count: number; about: boolean };

export function waitOf(seconds: number): Wait {
  const whole = Math.max(1, Math.ceil(seconds));
  if (whole <= 60) return { unit: 'second', count: whole, about: false };
  if (whole < 3_570) return { unit: 'minute', count: Math.round(whole / 60), about: true };
  return { unit: 'hour', count: Math.round(whole / 3_600), about: true };
}
