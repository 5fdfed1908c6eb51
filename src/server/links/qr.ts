/**
 * The QR code of a payment link (`GET <basePath>/pay/<link>/qr.svg`, docs/pay-links.md): the pay page's own address,
 * drawn by the kit as an SVG, so that a payer on a computer moves to their phone by its camera. Only for a link the kit
 * made and that is still good (never a QR of anything a request says), and only where the kit knows its public address
 * (`publicOrigin`): no request header names it. The encoder is uqr (unjs, no dependencies, every runtime), loaded on the
 * first QR asked for.
 */

/** The QR code's SVG: one path of dark modules on a light square, four modules of quiet zone around. */
export async function qrSvg(text: string, label: string): Promise<string> {
  const { encode } = await import('uqr');
  const { data, size } = encode(text, { ecc: 'M', border: 4 });
  let path = '';
  data.forEach((row, y) =>
    row.forEach((dark, x) => {
      if (dark) path += `M${x} ${y}h1v1h-1z`;
    }),
  );
  const escaped = label.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges" role="img" aria-label="${escaped}"><rect width="${size}" height="${size}" fill="#fff"/><path fill="#000" d="${path}"/></svg>`;
}

export async function qrAnswer(text: string, label: string, head: boolean): Promise<Response> {
  const svg = await qrSvg(text, label);
  return new Response(head ? null : svg, {
    status: 200,
    headers: {
      'Content-Type': 'image/svg+xml; charset=utf-8',
      'Cache-Control': 'no-store',
      'Content-Security-Policy': "default-src 'none'; frame-ancestors 'self'",
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      'Cross-Origin-Resource-Policy': 'same-origin',
    },
  });
}
