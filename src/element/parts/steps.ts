// Registers the parts of the steps after the form: they load with the session (src/element/engine.ts).
import './countdown/countdown.js';
import './leave-order.js';
import './swipe-step/swipe-step.js';
import './code-step/code-step.js';
import './redirect-step/redirect-step.js';
import './reference-code-step/reference-code-step.js';
import './waiting-step/waiting-step.js';
import './result/result.js';
