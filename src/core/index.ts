/**
 * The service contract as code: wire types, status values, result codes, paths, field rules and the one
 * validator, canonical JSON, money and digits. No DOM and no Node APIs: the element, the merchant kit and the
 * sandbox all import it.
 */
export * from './types.js';
export * from './status.js';
export * from './pay-methods.js';
export * from './pay-result.js';
export * from './errors.js';
export * from './paths.js';
export * from './return-channel.js';
export * from './formats.js';
export * from './rules.js';
export * from './validate.js';
export * from './operations.js';
export * from './tokens.js';
export * from './json.js';
export * from './money.js';
export * from './digits.js';
export * from './stream.js';
export * from './schedule.js';
export * from './timings.js';
export * from './addresses.js';
export * from './signing.js';
export * from './attempt-note.js';
