/** Throw this from `authorize` or `authorizeAction` to refuse; the element shows the message (at `field` when given). */
export class OrderRejection extends Error {
  override readonly name = 'OrderRejection';
  readonly field: string;
  constructor(message: string, options: { field?: string } = {}) {
    super(message);
    this.field = options.field ?? 'order';
  }
}
