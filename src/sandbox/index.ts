/**
 * `svc-checkout/sandbox`: the payment service on a developer's machine. Stateful: it keeps orders, moves
 * them through their life on its own clock, and sends signed callbacks.
 */
export { createSandbox } from './server.js';
export type { Sandbox, SandboxOptions } from './server.js';
export { DEFAULT_MERCHANT, SandboxConfigError } from './config.js';
export { parseMerchantsFile, parseSandboxFile, readSandboxFile } from './scenarios/scenario-file.js';
export type { ScenariosInput, BankAccountInput, RefundAmountInput, SandboxFile } from './scenarios/scenario-file.js';
export { DEFAULT_SCENARIOS } from './scenarios/test-values.js';
export type { Scenarios, RefundScenario } from './scenarios/test-values.js';
export { DELIVERY_FAULTS, DELIVERY_FAULT_KINDS, TAMPER_FIELDS } from './faults/delivery-faults.js';
export type { DeliveryFault, DeliveryFaultInput, DeliveryFaultKind, TamperField } from './faults/delivery-faults.js';
export { EXPECTATION_TARGETS } from './scenarios/expectations.js';
export type { Expectation, ExpectationInput, ExpectationTarget } from './scenarios/expectations.js';
export { SANDBOX_EVENT_TYPES } from './world/events.js';
export type { SandboxEvent, SandboxEventType } from './world/events.js';
export { DataFileError } from './world/persistence.js';
export type { SandboxMerchant, ResolvedMerchant } from './config.js';
export { RETRY_DELAYS_MS, RETRY_WINDOW_MS } from './callbacks/dispatcher.js';
export type { DeliveryAttempt, AttemptTrigger } from './callbacks/attempts.js';
export type { DeliveryView } from './callbacks/dispatcher.js';
export type { SentMessage } from './world/notifications.js';
export { FAULT_KINDS } from './faults/service-faults.js';
export type { FaultKind } from './faults/service-faults.js';
export * as testValues from './scenarios/test-values.js';
export { startDevStack } from './stacks/dev-stack.js';
export { startStack } from './stacks/stack.js';
export type { Stack, StackOptions } from './stacks/stack.js';
export { SandboxControl, SandboxControlError } from './control/client.js';
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
} from './control/client.js';
export { SANDBOX_PATHS } from './paths.js';
export type { SandboxOperation } from './paths.js';
export type { DevStack, DevStackOptions, Middleware } from './stacks/dev-stack.js';
