// The sandbox's 3-D Secure page as the payer meets it: the merchant's name (as the sandbox knows the shop) and the
// order's amount, in the payer's language (their browser's Accept-Language; Arabic right to left) and theme
// (prefers-color-scheme), with buttons a finger can press (44 px at least).
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fillPath } from '../../src/core/index.js';
import { createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { SANDBOX_PATHS } from '../../src/sandbox/paths.js';
import { threeDsLanguage } from '../../src/sandbox/three-ds/page.js';
import { ServiceClient } from '../../src/server/index.js';
import { bankAccountRequest } from '../core/fixtures.js';

let sandbox: Sandbox;
let pageUrl: string;
let browser: Browser;

beforeAll(async () => {
  sandbox = await createSandbox({ merchantName: 'Corner Coffee' });
  const merchant = sandbox.merchants[0]!;
  const client = new ServiceClient({ merchantId: merchant.merchantId, privateKey: merchant.privateKey, environment: { baseUrl: sandbox.url } });
  const created = await client.createPayment(bankAccountRequest({ reference: 'THREE-DS-1', bankAccountNumber: '2215381200', amount: { total: 123_456, currency: 'EGP' } }) as never);
  expect(created.data?.nextAction?.actionType).toBe('REDIRECT_3DS');
  pageUrl = `${sandbox.url}${fillPath(SANDBOX_PATHS.threeDsPage, { orderNo: created.data!.orderNo })}`;
  browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'],
  });
}, 30_000);

afterAll(async () => {
  await browser?.close();
  await sandbox?.close();
});

const page = async (acceptLanguage?: string) => (await fetch(pageUrl, { headers: acceptLanguage ? { 'Accept-Language': acceptLanguage } : {} })).text();

describe('the payer’s language', () => {
  it('is the first language of Accept-Language the page speaks, by preference', () => {
    expect(threeDsLanguage('ar-EG,ar;q=0.9,en;q=0.8')).toEqual({ language: 'ar', locale: 'ar-EG' });
    expect(threeDsLanguage('fr-FR, en-GB;q=0.8, ar;q=0.9')).toEqual({ language: 'ar', locale: 'ar' });
    expect(threeDsLanguage('de, en-US;q=0.5')).toEqual({ language: 'en', locale: 'en-US' });
    expect(threeDsLanguage('ar;q=0, en')).toEqual({ language: 'en', locale: 'en' });
    for (const odd of [undefined, '', '*', 'x'.repeat(300), 'ar"><script>', '<', ';q=1']) expect(threeDsLanguage(odd).language, String(odd)).toBe('en');
  });
});

describe('the sandbox’s 3-D Secure page', () => {
  it('shows the merchant’s name and the amount, in English by default', async () => {
    const html = await page();
    expect(html).toContain('<html lang="en" dir="ltr">');
    expect(html).toContain('<dd>Corner Coffee</dd>');
    expect(html).toContain('EGP');
    expect(html).toContain('1,234.56');
    expect(html).toContain('>Approve</button>');
  });

  it('speaks Arabic, right to left, to a payer whose browser asks for it, the amount in their digits', async () => {
    const html = await page('ar-EG,ar;q=0.9,en;q=0.8');
    expect(html).toContain('<html lang="ar" dir="rtl">');
    expect(html).toContain('>موافقة</button>');
    expect(html).toContain('<dd>Corner Coffee</dd>');
    expect(html).toContain('١٬٢٣٤٫٥٦');
    // The order reference is an identifier: left to right inside the Arabic page.
    expect(html).toContain('<bdi dir="ltr">THREE-DS-1</bdi>');
  });

  it('follows the payer’s theme, keeps its targets at 44 px, and lays out right to left in Chromium', async () => {
    const tab = await browser.newPage();
    try {
      await tab.setViewport({ width: 390, height: 800 });
      await tab.setExtraHTTPHeaders({ 'Accept-Language': 'ar' });
      const colours = async (scheme: 'light' | 'dark') => {
        await tab.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
        await tab.goto(pageUrl, { waitUntil: 'load' });
        return tab.evaluate(() => [getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color]);
      };
      expect(await colours('light')).toEqual(['rgb(255, 255, 255)', 'rgb(26, 26, 26)']);
      expect(await colours('dark')).toEqual(['rgb(27, 27, 31)', 'rgb(228, 226, 230)']);
      const layout = await tab.evaluate(() => ({
        direction: getComputedStyle(document.body).direction,
        buttons: [...document.querySelectorAll('button')].map((button) => {
          const box = button.getBoundingClientRect();
          return { text: button.textContent, width: box.width, height: box.height };
        }),
      }));
      expect(layout.direction).toBe('rtl');
      expect(layout.buttons.map((button) => button.text)).toEqual(['موافقة', 'رفض']);
      for (const button of layout.buttons) {
        expect(button.height, button.text!).toBeGreaterThanOrEqual(44);
        expect(button.width, button.text!).toBeGreaterThanOrEqual(44);
      }
    } finally {
      await tab.close();
    }
  });
});
