// custom-elements.json from the element's JSDoc (@summary, @event, @csspart, @cssproperty, @slot), and its
// attributes from the one attribute table (src/checkout/config.ts, built to dist/ before the manifest): the
// element declares its properties from that table, which the analyzer cannot read, so they are linked here to
// the documented fields.
// The build writes into a folder of its own before it takes the place of dist/ (scripts/build.mjs).
const outdir = process.env.SVC_BUILD_DIR ?? 'dist';
const { ATTRIBUTES, attributeOf } = await import(`./${outdir}/checkout/config.js`);
// The analyzer also guesses events from `dispatchEvent(new SvcXxxEvent(...))` calls; the plugin below keeps the
// documented events only, and gives each the type of its event class.

/** svc-pay-result -> SvcPayResultEvent, the class in src/element/events. */
const eventClass = (name) => `${name.replace(/(^|-)([a-z])/g, (_, __, letter) => letter.toUpperCase())}Event`;

function attributesFromTable() {
  return {
    name: 'svc-attributes-from-table',
    packageLinkPhase({ customElementsManifest }) {
      for (const module of customElementsManifest.modules) {
        for (const declaration of module.declarations ?? []) {
          if (declaration.tagName !== 'svc-checkout') continue;
          declaration.attributes = ATTRIBUTES.map((row) => {
            const member = declaration.members?.find((item) => item.name === row.property);
            if (!member) throw new Error(`ATTRIBUTES names ${row.property}, which <svc-checkout> does not declare`);
            member.attribute = attributeOf(row.property);
            if (row.property === 'theme') member.reflects = true;
            return { name: attributeOf(row.property), type: member.type, description: member.description, fieldName: row.property };
          });
        }
      }
    },
  };
}

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
  outdir,
  // package.json names dist/custom-elements.json itself; the analyzer would write the build folder's name there.
  packagejson: false,
  litelement: true,
  plugins: [attributesFromTable(), documentedEventsOnly()],
};
