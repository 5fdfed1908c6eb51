// <svc-checkout> in Vue's GlobalComponents, for Vue - Official and vue-tsc: its attributes, properties and typed events.
import 'svc-checkout/jsx/vue';
