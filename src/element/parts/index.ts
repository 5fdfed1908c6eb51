// Registers every part of <svc-checkout>.
import './method-picker/method-picker.js';
import './pos-form/pos-form.js';
import './bank-account-form/bank-account-form.js';
import './reference-code-form/reference-code-form.js';
import './countdown/countdown.js';
import './leave-order.js';
import './swipe-step/swipe-step.js';
import './code-step/code-step.js';
import './redirect-step/redirect-step.js';
import './reference-code-step/reference-code-step.js';
import './waiting-step/waiting-step.js';
import './result/result.js';
