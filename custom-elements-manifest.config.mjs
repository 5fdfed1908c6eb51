// custom-elements.json from the element's JSDoc (@summary, @event, @csspart, @cssproperty, @slot).
// The analyzer also guesses events from `dispatchEvent(new SvcXxxEvent(...))` calls; the plugin below keeps the
// documented events only, and gives each the type of its event class.

/** svc-pay-result -> SvcPayResultEvent, the class in src/element/events. */
const eventClass = (name) => `${name.replace(/(^|-)([a-z])/g, (_, __, letter) => letter.toUpperCase())}Event`;

function documentedEventsOnly() {
  return {
    name: 'svc-documented-events-only',
    packageLinkPhase({ customElementsManifest }) {
      for (const module of customElementsManifest.modules) {
        for (const declaration of module.declarations ?? []) {
          if (!declaration.events) continue;
          const documented = declaration.events.filter((event) => event.description && event.name?.startsWith('svc-'));
          for (const event of documented) event.type = { text: eventClass(event.name) };
          declaration.events = documented;
        }
        // definePart(name, Class) registers internal parts under a variable name: not a public definition.
        module.exports = (module.exports ?? []).filter(
          (entry) => entry.kind !== 'custom-element-definition' || /^[a-z]+-[a-z-]+$/.test(entry.name),
        );
      }
    },
  };
}

export default {
  globs: ['src/element/**/*.ts'],
  outdir: 'dist',
  litelement: true,
  plugins: [documentedEventsOnly()],
};
