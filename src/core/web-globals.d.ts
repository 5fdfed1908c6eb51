/**
 * The one web-platform global `src/core` relies on. It is present in browsers, Node and edge runtimes; core's
 * own type check (src/core/tsconfig.json) has no DOM or Node types, so it is declared here, narrowly.
 */
declare class URL {
  constructor(input: string, base?: string);
  readonly protocol: string;
  readonly hostname: string;
}
