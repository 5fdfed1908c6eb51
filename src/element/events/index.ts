export * from './svc-action.js';
export * from './svc-change.js';
export * from './svc-error.js';
export * from './svc-expired.js';
export * from './svc-http-response.js';
export * from './svc-pay-result.js';
export * from './svc-ready.js';
export * from './svc-before-redirect.js';
export { EVENTS, type DomEventType, type EventRow } from './table.js';
