// <svc-checkout> in Svelte's element typings, for svelte-check and Svelte for VS Code: its attributes,
// properties and typed events.
import 'svc-checkout/jsx/svelte';
