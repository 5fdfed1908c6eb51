// Editor data and JSX typings, generated from dist/custom-elements.json (the manifest, itself from the element's
// JSDoc), so that they follow the element as it changes: no list of attributes or events is written by hand.
//
//   dist/vscode.html-data.json   VS Code HTML custom data (the `html.customData` setting)
//   dist/vscode.css-data.json    VS Code CSS custom data: CSS custom properties and ::part()s (`css.customData`)
//   dist/web-types.json          JetBrains web-types (the `web-types` field of package.json)
//   dist/jsx/<framework>.d.ts    the element in the JSX of React 19, Preact, Solid, Vue 3 and Svelte 5
//   dist/jsx/<framework>.js      an empty module, so that a plain `import 'svc-checkout/jsx/<framework>'` resolves
//
// The typings take every type from the element's own declarations (`SvcCheckout['payAmount']`, the event classes
// exported by the package), never from the manifest's type text, and import them from the package entry.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const outdir = 'dist';
/** The folder being built (scripts/build.mjs), which then becomes dist/: files are written there under their dist/ names. */
const buildDir = process.env.SVC_BUILD_DIR ?? outdir;
const built = (path) => path.replace(/^dist\//, `${buildDir}/`);

// ---------------------------------------------------------------------------------------------------------------
// The manifest, read once into a plain model of each element.

const isIdentifier = (text) => /^[A-Za-z_$][\w$]*$/.test(text ?? '');

/** Public, settable instance fields: what a template may set as a property. */
const isProperty = (member) =>
  member.kind === 'field' && !member.static && !member.readonly && (member.privacy ?? 'public') === 'public' && isIdentifier(member.name);

/** The elements the manifest describes, and where their types are imported from (the package entry, as built). */
function readModel(manifest, pkg) {
  const manifestPath = pkg.customElements;
  const entryPath = posix.normalize(pkg.exports['.'].default);
  const modules = new Map(manifest.modules.map((module) => [module.path, module]));
  const entryExports = exportedNames(modules, manifestPath, entryPath);
  const elements = manifest.modules
    .flatMap((module) => module.declarations ?? [])
    .filter((declaration) => declaration.customElement && declaration.tagName)
    .map((declaration) => elementModel(declaration, entryExports, entryPath));
  if (elements.length === 0) throw new Error(`${manifestPath} describes no custom element.`);
  return { pkg, manifestPath, entryPath, elements };
}

/** Names a module exports, following `export * from` through the manifest. */
function exportedNames(modules, manifestPath, path, seen = new Set()) {
  const names = new Set();
  if (seen.has(path)) return names;
  seen.add(path);
  const module = modules.get(path);
  if (!module) throw new Error(`${manifestPath} has no module ${path}`);
  for (const entry of module.exports ?? []) {
    if (entry.kind !== 'js') continue;
    if (entry.name !== '*') names.add(entry.name);
    else if (entry.declaration?.module) {
      const target = posix.normalize(entry.declaration.module.startsWith('.') ? posix.join(posix.dirname(path), entry.declaration.module) : entry.declaration.module);
      for (const name of exportedNames(modules, manifestPath, target, seen)) names.add(name);
    }
  }
  return names;
}

function elementModel(declaration, entryExports, entryPath) {
  if (!entryExports.has(declaration.name)) {
    throw new Error(`<${declaration.tagName}> (${declaration.name}) is not exported by ${entryPath}; the typings import it from there.`);
  }
  const fields = (declaration.members ?? []).filter(isProperty);
  const fieldByName = new Map(fields.map((field) => [field.name, field]));
  const attributes = (declaration.attributes ?? []).map((attribute) => {
    const field = attribute.fieldName ? fieldByName.get(attribute.fieldName) : undefined;
    return {
      name: attribute.name,
      field: field?.name,
      description: attribute.description ?? field?.description ?? '',
      typeText: attribute.type?.text ?? field?.type?.text,
    };
  });
  const attributeOf = new Map(attributes.filter((attribute) => attribute.field).map((attribute) => [attribute.field, attribute.name]));
  const properties = fields.map((field) => ({
    name: field.name,
    attribute: attributeOf.get(field.name),
    description: field.description ?? '',
    typeText: field.type?.text,
  }));
  const events = (declaration.events ?? [])
    .filter((event) => event.name)
    .map((event) => ({
      name: event.name,
      description: event.description ?? '',
      // The event's class when the package exports it; otherwise the element's HTMLElementEventMap entry.
      className: isIdentifier(event.type?.text) && entryExports.has(event.type.text) ? event.type.text : undefined,
    }));
  return {
    tagName: declaration.tagName,
    className: declaration.name,
    summary: declaration.summary ?? '',
    description: declaration.description ?? '',
    attributes,
    properties,
    events,
    slots: declaration.slots ?? [],
    cssParts: declaration.cssParts ?? [],
    cssProperties: declaration.cssProperties ?? [],
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Text helpers.

const oneLine = (text) => text.replace(/\s+/g, ' ').trim();
const camel = (name) => name.replace(/-([a-z])/g, (_, letter) => letter.toUpperCase());
const pascal = (name) => camel(name).replace(/^[a-z]/, (letter) => letter.toUpperCase());
const quoteKey = (key) => (isIdentifier(key) ? key : `'${key}'`);

function tagMarkdown(element) {
  const lines = [element.summary || element.description];
  if (element.summary && element.description) lines.push('', element.description);
  const section = (title, items, format) => {
    if (items.length) lines.push('', `**${title}**`, '', ...items.map((item) => `- ${format(item)}`));
  };
  section('Events', element.events, (event) => `\`${event.name}\`: ${oneLine(event.description)}`);
  section('Slots', element.slots, (slot) => `${slot.name ? `\`${slot.name}\`` : 'default'}: ${oneLine(slot.description ?? '')}`);
  section('Properties (not attributes)', element.properties.filter((property) => !property.attribute), (property) => `\`${property.name}\`: ${oneLine(property.description)}`);
  section('CSS parts', element.cssParts, (part) => `\`::part(${part.name})\`: ${oneLine(part.description ?? '')}`);
  section('CSS custom properties', element.cssProperties, (property) => `\`${property.name}\`: ${oneLine(property.description ?? '')}`);
  return lines.join('\n');
}

function attributeMarkdown(attribute) {
  const facts = [attribute.typeText && `Type: \`${attribute.typeText}\``, attribute.field && `property \`${attribute.field}\``].filter(Boolean);
  return [oneLine(attribute.description), facts.join('; ')].filter(Boolean).join('\n\n');
}

/** `'a' | 'b' | undefined` -> ['a', 'b']; anything else -> []. */
function literalValues(typeText) {
  const parts = (typeText ?? '').split('|').map((part) => part.trim()).filter((part) => part !== 'undefined' && part !== 'null');
  if (parts.length === 0 || !parts.every((part) => /^(['"]).*\1$/.test(part))) return [];
  return parts.map((part) => part.slice(1, -1));
}

// ---------------------------------------------------------------------------------------------------------------
// Editors.

function vscodeHtmlData({ elements }) {
  return {
    version: 1.1,
    tags: elements.map((element) => ({
      name: element.tagName,
      description: { kind: 'markdown', value: tagMarkdown(element) },
      attributes: element.attributes.map((attribute) => {
        const values = literalValues(attribute.typeText);
        return {
          name: attribute.name,
          description: { kind: 'markdown', value: attributeMarkdown(attribute) },
          ...(values.length ? { values: values.map((name) => ({ name })) } : {}),
        };
      }),
    })),
  };
}

function vscodeCssData({ elements }) {
  return {
    version: 1.1,
    properties: elements.flatMap((element) =>
      element.cssProperties.map((property) => ({ name: property.name, description: `<${element.tagName}>: ${oneLine(property.description ?? '')}` })),
    ),
    pseudoElements: elements.flatMap((element) =>
      element.cssParts.map((part) => ({ name: `::part(${part.name})`, description: `<${element.tagName}>: ${oneLine(part.description ?? '')}` })),
    ),
  };
}

function webTypes({ pkg, elements }) {
  return {
    $schema: 'https://json.schemastore.org/web-types',
    name: pkg.name,
    version: pkg.version,
    'description-markup': 'markdown',
    'js-types-syntax': 'typescript',
    contributions: {
      html: {
        elements: elements.map((element) => ({
          name: element.tagName,
          description: tagMarkdown(element),
          attributes: element.attributes.map((attribute) => ({
            name: attribute.name,
            description: attributeMarkdown(attribute),
            ...(attribute.typeText ? { value: { type: attribute.typeText } } : {}),
          })),
          slots: element.slots.map((slot) => ({ name: slot.name, description: slot.description ?? '' })),
          js: {
            properties: element.properties.map((property) => ({
              name: property.name,
              description: oneLine(property.description),
              ...(property.typeText ? { type: property.typeText } : {}),
            })),
            events: element.events.map((event) => ({
              name: event.name,
              description: oneLine(event.description),
              ...(event.className ? { type: { module: pkg.name, name: event.className } } : {}),
            })),
          },
          // The element's ::part()s; its custom properties are global below, as they are set on any ancestor.
          css: { parts: element.cssParts.map((part) => ({ name: part.name, description: oneLine(part.description ?? '') })) },
        })),
      },
      css: {
        properties: elements.flatMap((element) =>
          element.cssProperties.map((property) => ({ name: property.name, description: oneLine(property.description ?? '') })),
        ),
      },
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// JSX typings. Each framework sets attributes, properties and listeners its own way; `keys` says, for one element,
// which keys a template may write and what each accepts.

/** Type of property `name` of the element. */
const propertyType = (element, name) => `${element.className}['${name}']`;
/** An attribute's type: from its property when it has one; a plain attribute's own manifest type if primitive. */
function attributeType(element, attribute) {
  if (attribute.field) return `AttributeValue<${propertyType(element, attribute.field)}>`;
  const text = attribute.typeText ?? '';
  return /^(\s*(string|number|boolean|undefined|null|'[^']*'|"[^"]*")\s*\|?)+$/.test(text) ? `AttributeValue<${text}>` : 'string';
}
const eventType = (event) => event.className ?? `EventOf<'${event.name}'>`;

function doc(text, facts) {
  const body = [oneLine(text), facts].filter(Boolean).join(' ');
  return body ? `/** ${body.replace(/\*\//g, '*\\/')} */` : '';
}

/**
 * The keys of one element in one framework: [{key, type, doc}]. `style` says how the framework applies a key:
 * - `properties`: camelCase keys set the property; kebab-case attribute keys set the attribute (React 19, Preact,
 *   Svelte 5: a key the element has as a property is set as one, any other as an attribute).
 * - `solid`: plain keys on a custom element are properties (kebab-case ones camelised) and a static string is an
 *   attribute; `prop:`, `attr:` and `on:` force the one or the other.
 * - `vue`: one camelCase prop per property (Vue templates accept the kebab-case spelling of it).
 */
function keys(element, framework) {
  const entries = [];
  const add = (key, type, description, facts) => entries.push({ key, type, doc: doc(description, facts) });
  for (const property of element.properties) {
    const attribute = element.attributes.find((item) => item.field === property.name);
    const facts = attribute ? `Property \`${property.name}\`, attribute \`${attribute.name}\`.` : `Property \`${property.name}\` (no attribute).`;
    const type = propertyType(element, property.name);
    if (framework.style === 'vue') {
      // A static `pay-amount="100"` in a template reaches the element as an attribute.
      const union = attribute && attribute.name !== property.name ? `${type} | ${attributeType(element, attribute)}` : type;
      add(property.name, union, property.description, facts);
    } else if (framework.style === 'solid') {
      add(property.name, attribute && attribute.name === property.name ? `${type} | ${attributeType(element, attribute)}` : type, property.description, facts);
      add(`prop:${property.name}`, type, property.description, facts);
    } else {
      add(property.name, type, property.description, facts);
    }
  }
  for (const attribute of element.attributes) {
    const facts = attribute.field ? `Attribute \`${attribute.name}\`, property \`${attribute.field}\`.` : `Attribute \`${attribute.name}\`.`;
    if (framework.style === 'vue') {
      if (!attribute.field) add(camel(attribute.name), attributeType(element, attribute), attribute.description, facts);
      continue;
    }
    if (framework.style === 'solid') {
      if (attribute.name !== attribute.field) {
        const type = attribute.field ? `${propertyType(element, attribute.field)} | ${attributeType(element, attribute)}` : attributeType(element, attribute);
        add(attribute.name, type, attribute.description, facts);
      }
      add(`attr:${attribute.name}`, attributeType(element, attribute), attribute.description, facts);
      continue;
    }
    if (attribute.name !== attribute.field) add(attribute.name, attributeType(element, attribute), attribute.description, facts);
  }
  for (const event of element.events) {
    for (const key of framework.eventKeys(event.name)) {
      add(key, framework.handler(element, eventType(event)), event.description, `Listens to \`${event.name}\`.`);
    }
  }
  return entries;
}

const frameworks = [
  {
    id: 'react',
    title: 'React 19 (React.JSX.IntrinsicElements)',
    style: 'properties',
    imports: [`import type * as React from 'react';`],
    base: (element) => `React.DetailedHTMLProps<React.HTMLAttributes<${element.className}>, ${element.className}>`,
    // React 19 adds a listener for a custom element's `on<event name>` prop, the name as written.
    eventKeys: (name) => [`on${name}`],
    handler: (_element, event) => `(event: ${event}) => void`,
    augment: (entries) => `declare module 'react' {\n  namespace JSX {\n    interface IntrinsicElements {\n${entries}\n    }\n  }\n}`,
  },
  {
    id: 'preact',
    title: 'Preact (preact.JSX.IntrinsicElements)',
    style: 'properties',
    imports: [`import type { HTMLAttributes } from 'preact';`],
    base: (element) => `HTMLAttributes<${element.className}>`,
    // Preact listens to `on<name>` as written when `on<name>` (lowercased) is not a property of the element.
    eventKeys: (name) => [`on${name}`],
    handler: (element, event) => `(this: ${element.className}, event: ${event}) => void`,
    augment: (entries) => `declare module 'preact' {\n  namespace JSX {\n    interface IntrinsicElements {\n${entries}\n    }\n  }\n}`,
  },
  {
    id: 'solid',
    title: 'Solid (solid-js JSX.IntrinsicElements, with prop:, attr: and on:)',
    style: 'solid',
    imports: [`import type { JSX } from 'solid-js';`],
    base: (element) => `JSX.HTMLAttributes<${element.className}>`,
    eventKeys: (name) => [`on:${name}`],
    handler: (element, event) => `JSX.EventHandlerWithOptionsUnion<${element.className}, ${event}>`,
    augment: (entries) => `declare module 'solid-js' {\n  namespace JSX {\n    interface IntrinsicElements {\n${entries}\n    }\n  }\n}`,
  },
  {
    id: 'vue',
    title: 'Vue 3 (GlobalComponents, for templates checked by Vue - Official / vue-tsc)',
    style: 'vue',
    imports: [`import type { DefineComponent } from 'vue';`],
    base: () => undefined,
    // `@svc-pay-result` in a template is the prop `onSvcPayResult`; on an element Vue listens to `svc-pay-result`.
    eventKeys: (name) => [`on${pascal(name)}`],
    handler: (_element, event) => `(event: ${event}) => void`,
    register: (element, props) => `DefineComponent<${props}>`,
    augment: (entries) => `declare module 'vue' {\n  interface GlobalComponents {\n${entries}\n  }\n}`,
  },
  {
    id: 'svelte',
    title: 'Svelte 5 (svelte/elements SvelteHTMLElements)',
    style: 'properties',
    imports: [`import type { HTMLAttributes } from 'svelte/elements';`],
    base: (element) => `HTMLAttributes<${element.className}>`,
    // Svelte 5 listens to `on<name>` as written; `on:<name>` is the Svelte 4 directive, still accepted.
    eventKeys: (name) => [`on${name}`, `on:${name}`],
    handler: (element, event) => `(event: ${event} & { currentTarget: EventTarget & ${element.className} }) => any`,
    augment: (entries) => `declare module 'svelte/elements' {\n  interface SvelteHTMLElements {\n${entries}\n  }\n}`,
  },
];

function typings({ manifestPath, entryPath, elements }, framework, fromDir) {
  const entryImport = `./${posix.relative(fromDir, entryPath)}`.replace(/^\.\/\.\.\//, '../');
  const names = new Set(elements.flatMap((element) => [element.className, ...element.events.map((event) => event.className).filter(Boolean)]));
  const out = [
    `// Generated by scripts/build-integrations.mjs from ${manifestPath}: do not edit.`,
    `// <${elements.map((element) => element.tagName).join('>, <')}> in ${framework.title}.`,
    `// Use: import 'svc-checkout/jsx/${framework.id}' once in the app, or add "svc-checkout/jsx/${framework.id}" to "types" in tsconfig.json.`,
    ...framework.imports,
    `import type { ${[...names].join(', ')} } from '${entryImport}';`,
    '',
  ];
  const body = [];
  const registered = [];
  for (const element of elements) {
    const entries = keys(element, framework);
    const propsName = `${element.className}Props`;
    const ownName = `${element.className}OwnProps`;
    const base = framework.base(element);
    const summary = oneLine(element.summary || element.description);
    body.push(`/** The attributes, properties and events of <${element.tagName}>, from its manifest. */`);
    body.push(`export interface ${ownName} {`);
    for (const entry of entries) {
      if (entry.doc) body.push(`  ${entry.doc}`);
      body.push(`  ${quoteKey(entry.key)}?: ${entry.type};`);
    }
    body.push('}', '');
    body.push(`/** ${summary} */`);
    body.push(base ? `export interface ${propsName} extends Omit<${base}, keyof ${ownName}>, ${ownName} {}` : `export interface ${propsName} extends ${ownName} {}`);
    body.push('');
    const indent = framework.id === 'vue' ? '    ' : '      ';
    registered.push(`${indent}'${element.tagName}': ${framework.register ? framework.register(element, propsName) : propsName};`);
  }
  const text = body.join('\n');
  if (text.includes('AttributeValue<')) {
    out.push(
      '/** What an attribute accepts for a property of type T: T, or its text for numbers and booleans. */',
      "type AttributeValue<T> = T extends boolean ? T | `${T}` | '' : T extends number ? T | `${T}` : T;",
    );
  }
  if (text.includes('EventOf<')) {
    out.push(
      '/** The event `N` of the element, from its HTMLElementEventMap entry (its class is not exported). */',
      'type EventOf<N extends string> = N extends keyof HTMLElementEventMap ? HTMLElementEventMap[N] : CustomEvent<unknown>;',
    );
  }
  out.push('', text, framework.augment(registered.join('\n')), '');
  return out.join('\n');
}

// ---------------------------------------------------------------------------------------------------------------
// Output.

/** Every generated file, path (from the package root) to text, for this manifest and package.json. */
export function integrationFiles(manifest, pkg) {
  const model = readModel(manifest, pkg);
  const files = new Map([
    [`${outdir}/vscode.html-data.json`, `${JSON.stringify(vscodeHtmlData(model), null, 2)}\n`],
    [`${outdir}/vscode.css-data.json`, `${JSON.stringify(vscodeCssData(model), null, 2)}\n`],
    [`${outdir}/web-types.json`, `${JSON.stringify(webTypes(model), null, 2)}\n`],
  ]);
  for (const framework of frameworks) {
    files.set(`${outdir}/jsx/${framework.id}.d.ts`, typings(model, framework, `${outdir}/jsx`));
    files.set(`${outdir}/jsx/${framework.id}.js`, `// Types only: see ${framework.id}.d.ts.\nexport {};\n`);
  }
  return files;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8'));
  const manifest = JSON.parse(await readFile(join(root, built(pkg.customElements)), 'utf8'));
  const files = integrationFiles(manifest, pkg);
  for (const [path, text] of files) {
    await mkdir(dirname(join(root, built(path))), { recursive: true });
    await writeFile(join(root, built(path)), text);
  }
  console.log(`${pkg.customElements} -> ${[...files.keys()].join(', ')}`);
}
