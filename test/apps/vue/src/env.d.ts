// <svc-checkout> in Vue's GlobalComponents, for Vue - Official and vue-tsc: its attributes, properties and typed events.
import 'svc-checkout/jsx/vue';

declare module '*.vue' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent;
  export default component;
}
