// The payment links a kit made beside the sandbox (docs/pay-links.md): the stack tells the sandbox of each link it
// makes, the control API lists them (the newest first) and checks what it is told, the event stream carries them to
// the dashboard, and a reset forgets them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxControl, SandboxControlError, startStack } from '../../src/sandbox/index.js';

type Stack = Awaited<ReturnType<typeof startStack>>;
let stack: Stack;
let control: SandboxControl;

beforeAll(async () => {
  stack = await startStack({ basePath: '/checkout', handler: { logger: { warn() {}, error() {} } } });
  control = new SandboxControl(stack.sandbox.url);
});
afterAll(() => stack.close());

const order = (reference: string) => ({ reference, amount: { total: 12_500, currency: 'EGP' }, country: 'EG', product: { name: 'Coffee beans', description: 'Ethiopian' } });

describe("the sandbox's payment links", () => {
  it('lists each link the stack made, the newest first, and streams the list to the dashboard', async () => {
    const event = control.waitForEvent((each) => each.type === 'links', { types: ['links'] });
    const first = await stack.paymentLink(order('links-1'));
    expect((await event).data).toEqual([expect.objectContaining({ url: first.url, reference: 'links-1' })]);
    const second = await stack.paymentLink(order('links-2'));
    const listed = await control.links();
    expect(listed.map((link) => link.url)).toEqual([second.url, first.url]);
    expect(listed[0]).toEqual({ url: second.url, reference: 'links-2', amount: { total: 12_500, currency: 'EGP' }, productName: 'Coffee beans', expiresAt: second.expiresAt, madeAt: expect.any(Number) });
    expect(second.url.startsWith(`${stack.url}/pay/pl1.`)).toBe(true);
    expect(((await control.request('GET', '/sandbox/v1/state')).body as { links: unknown[] }).links).toHaveLength(2);
  });

  it('refuses what is not a link, naming the field, and forgets every link on reset', async () => {
    const refused = await control.addLink({ url: 'javascript:alert(1)', reference: 'links-3', amount: { total: -1, currency: 'EGP' }, productName: 'x', expiresAt: 1 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SandboxControlError);
    expect(JSON.stringify((refused as SandboxControlError).body)).toMatch(/url.*amount\.total|amount\.total.*url/);
    await control.request('POST', '/sandbox/v1/reset');
    expect(await control.links()).toEqual([]);
  });
});
