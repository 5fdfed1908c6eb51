/**
 * JSON for files people write by hand (the sandbox's scenarios file): parsed with the line and column of every
 * value, so that an error can point at the place to fix — a syntax error as much as a wrong value.
 */

export interface Location {
  line: number;
  column: number;
}

export interface LocatedJson {
  value: unknown;
  /** Where the value at `path` starts (an object's key, for a member); the document's start when unknown. */
  locate(path: readonly (string | number)[]): Location;
}

export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';
  constructor(
    message: string,
    readonly location: Location,
  ) {
    super(`line ${location.line}, column ${location.column}: ${message}`);
  }
}

const pathKey = (path: readonly (string | number)[]) => JSON.stringify(path);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;

export function parseLocatedJson(text: string): LocatedJson {
  const starts = new Map<string, number>();
  let index = 0;

  const locationOf = (offset: number): Location => {
    let line = 1;
    let lineStart = 0;
    for (let at = 0; at < offset && at < text.length; at++) {
      if (text[at] === '\n') {
        line += 1;
        lineStart = at + 1;
      }
    }
    return { line, column: offset - lineStart + 1 };
  };
  const fail = (message: string, offset = index): never => {
    throw new JsonSyntaxError(message, locationOf(offset));
  };
  const skip = () => {
    WHITESPACE.lastIndex = index;
    WHITESPACE.exec(text);
    index = WHITESPACE.lastIndex;
  };
  const describe = (offset: number) => (offset >= text.length ? 'the end of the file' : `${JSON.stringify(text[offset])}`);

  const parseString = (): string => {
    const start = index;
    index += 1;
    for (;;) {
      const char = text[index];
      if (char === undefined || char === '\n') fail('a string is not closed', start);
      if (char === '\\') index += 2;
      else if (char === '"') break;
      else index += 1;
    }
    index += 1;
    try {
      return JSON.parse(text.slice(start, index)) as string;
    } catch {
      return fail('a string holds a bad escape or a control character', start);
    }
  };

  const parseValue = (path: (string | number)[]): unknown => {
    skip();
    if (!starts.has(pathKey(path))) starts.set(pathKey(path), index);
    const char = text[index];
    if (char === '{') return parseObject(path);
    if (char === '[') return parseArray(path);
    if (char === '"') return parseString();
    for (const [word, value] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, index)) {
        index += word.length;
        return value;
      }
    }
    NUMBER.lastIndex = index;
    const number = NUMBER.exec(text);
    if (number) {
      index = NUMBER.lastIndex;
      return Number(number[0]);
    }
    return fail(`expected a value, found ${describe(index)}`);
  };

  const parseObject = (path: (string | number)[]): Record<string, unknown> => {
    const object: Record<string, unknown> = {};
    index += 1;
    skip();
    if (text[index] === '}') {
      index += 1;
      return object;
    }
    for (;;) {
      skip();
      if (text[index] !== '"') fail(`expected a key in double quotes, found ${describe(index)}`);
      const keyStart = index;
      const key = parseString();
      if (Object.hasOwn(object, key)) fail(`the key ${JSON.stringify(key)} appears twice`, keyStart);
      const memberPath = [...path, key];
      starts.set(pathKey(memberPath), keyStart);
      skip();
      if (text[index] !== ':') fail(`expected ":" after the key ${JSON.stringify(key)}, found ${describe(index)}`);
      index += 1;
      // Own property even for "__proto__": never the prototype.
      Object.defineProperty(object, key, { value: parseValue(memberPath), enumerable: true, writable: true, configurable: true });
      skip();
      if (text[index] === ',') {
        index += 1;
        continue;
      }
      if (text[index] === '}') {
        index += 1;
        return object;
      }
      fail(`expected "," or "}" after the value of ${JSON.stringify(key)}, found ${describe(index)}`);
    }
  };

  const parseArray = (path: (string | number)[]): unknown[] => {
    const array: unknown[] = [];
    index += 1;
    skip();
    if (text[index] === ']') {
      index += 1;
      return array;
    }
    for (;;) {
      array.push(parseValue([...path, array.length]));
      skip();
      if (text[index] === ',') {
        index += 1;
        continue;
      }
      if (text[index] === ']') {
        index += 1;
        return array;
      }
      fail(`expected "," or "]" in a list, found ${describe(index)}`);
    }
  };

  // A byte order mark is what some editors put first; it is not an error to point at.
  if (text.charCodeAt(0) === 0xfeff) index = 1;
  const value = parseValue([]);
  skip();
  if (index < text.length) fail(`unexpected ${describe(index)} after the end of the document`);
  return {
    value,
    locate(path) {
      for (let length = path.length; length >= 0; length--) {
        const start = starts.get(pathKey(path.slice(0, length)));
        if (start !== undefined) return locationOf(start);
      }
      return { line: 1, column: 1 };
    },
  };
}
