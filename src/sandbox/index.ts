/**
 * `svc-checkout/sandbox`: the payment service on a developer's machine. Stateful: it keeps orders, moves
 * them through their life on its own clock, and sends signed callbacks.
 */
export { createSandbox } from './server.js';
export type { Sandbox, SandboxOptions } from './server.js';
export { DEFAULT_MERCHANT, SandboxConfigError } from './config.js';
export { parseMerchantsFile, parseSandboxFile, readSandboxFile } from './scenario-file.js';
export type { ScenariosInput, BankAccountInput, RefundAmountInput, SandboxFile } from './scenario-file.js';
export { DEFAULT_SCENARIOS } from './scenarios.js';
export type { Scenarios, RefundScenario } from './scenarios.js';
export { DELIVERY_FAULTS, DELIVERY_FAULT_KINDS, TAMPER_FIELDS } from './delivery-faults.js';
export type { DeliveryFault, DeliveryFaultInput, DeliveryFaultKind, TamperField } from './delivery-faults.js';
export { EXPECTATION_TARGETS } from './expectations.js';
export type { Expectation, ExpectationInput, ExpectationTarget } from './expectations.js';
export { SANDBOX_EVENT_TYPES } from './events.js';
export type { SandboxEvent, SandboxEventType } from './events.js';
export { DataFileError } from './persistence.js';
export type { SandboxMerchant, ResolvedMerchant } from './config.js';
export { RETRY_DELAYS_MS, RETRY_WINDOW_MS } from './callbacks.js';
export type { DeliveryAttempt, DeliveryView, AttemptTrigger } from './callbacks.js';
export type { SentMessage } from './notifications.js';
export { FAULT_KINDS } from './faults.js';
export type { FaultKind } from './faults.js';
export * as testValues from './scenarios.js';
export { startDevStack } from './dev-stack.js';
export { startStack } from './stack.js';
export type { Stack, StackOptions } from './stack.js';
export { SandboxControl, SandboxControlError } from './control-client.js';
export type {
  SandboxControlOptions,
  SandboxOrderView,
  SandboxRefundView,
  SandboxDelivery,
  SandboxDeliveryView,
  SandboxDeliveryFault,
  SandboxDeliveryFaultInput,
  SandboxExpectation,
  SandboxExpectationInput,
  SandboxMessage,
  SandboxClockView,
  SandboxSnapshot,
  ControlAnswer,
} from './control-client.js';
export { SANDBOX_PATHS } from './paths.js';
export type { SandboxOperation } from './paths.js';
export type { DevStack, DevStackOptions, Middleware } from './dev-stack.js';
