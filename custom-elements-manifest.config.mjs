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
        // Members marked @internal (the private-key trap) are not the element's interface.
        for (const declaration of module.declarations ?? []) {
          const internal = new Set(
            (declaration.members ?? []).filter((member) => member.description?.includes('@internal') || member.privacy === 'private').map((member) => member.name),
          );
          internal.add('privateKey');
          if (declaration.members) declaration.members = declaration.members.filter((member) => !internal.has(member.name));
          if (declaration.attributes) declaration.attributes = declaration.attributes.filter((attribute) => !internal.has(attribute.fieldName));
        }
        // definePart(name, Class) registers internal parts under a variable name: not a public definition.
        module.exports = (module.exports ?? []).filter(
          (entry) => entry.kind !== 'custom-element-definition' || /^[a-z]+-[a-z-]+$/.test(entry.name),
        );
      }
      // Point at what ships (dist/…js), not at the sources, which are not in the package.
      const shipped = (path) => path?.replace(/^\/?src\//, 'dist/').replace(/\.ts$/, '.js');
      for (const module of customElementsManifest.modules) {
        module.path = shipped(module.path);
        for (const entry of module.exports ?? []) {
          if (entry.declaration?.module) entry.declaration.module = shipped(entry.declaration.module);
        }
        for (const declaration of module.declarations ?? []) {
          for (const member of [...(declaration.members ?? []), ...(declaration.attributes ?? [])]) {
            if (member.inheritedFrom?.module) member.inheritedFrom.module = shipped(member.inheritedFrom.module);
          }
        }
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
