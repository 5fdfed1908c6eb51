/**
 * axe-core in another window of the test (a pay page, a screen opened on a link): its WCAG 2.2 A and AA rules, loaded
 * from the page's own origin as its Content-Security-Policy asks.
 */
import { until } from './checkout.js';

export type Screen = Window & { axe?: { run(context: Document, options: object): Promise<{ violations: { id: string; help: string; nodes: { target: string[] }[] }[] }> } };

/** The window's document's violations of WCAG 2.2 A and AA, one line each (rule, help, where). */
export async function violations(screen: Screen): Promise<string[]> {
  if (!screen.axe) {
    const script = screen.document.createElement('script');
    script.src = '/node_modules/axe-core/axe.min.js';
    screen.document.head.append(script);
    await until('axe in the window', () => screen.axe, 10_000);
  }
  const results = await screen.axe!.run(screen.document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'], iframes: false });
  return results.violations.map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`);
}
