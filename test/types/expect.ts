// Type-level assertions for the fixtures: `expectType<T>()(value)` compiles only when value's type is exactly T.
type Equal<A, B> = (<V>() => V extends A ? 1 : 2) extends <V>() => V extends B ? 1 : 2 ? true : false;

export function expectType<Expected>() {
  return <Actual>(_value: Actual & (Equal<Actual, Expected> extends true ? unknown : never)): void => {};
}
