// What the isolated frame hands the page of the kit's answer to a call it sent: never a value typed in it, even when
// a shop's own words (an OrderRejection of its authorize hook, which sees the bank details) or the service's quote one.
import { describe, expect, it } from 'vitest';
import { withoutTyped } from '../../src/isolated-fields/scrub.js';

describe("the frame's answer to the page", () => {
  it('holds no typed value of four characters or more, as a whole word, however the answer spells it', () => {
    const answer = JSON.stringify({ code: '02001', message: 'Account 2215381176 (2215 3811 76) is closed; born 1990.', data: { orderNo: '26112215381176990' } });
    const out = withoutTyped(answer, ['2215 3811 76', '033', '05', '01', '1990']);
    expect(JSON.parse(out).message).toBe('Account •••• (••••) is closed; born ••••.');
    // A digit run inside a longer number is not the value: the order number is the service's, and stays.
    expect(JSON.parse(out).data.orderNo).toBe('26112215381176990');
    // Short values (a day, a month, a bank code of three digits) are left: they would match everywhere.
    expect(withoutTyped('bank 033, day 05', ['033', '05'])).toBe('bank 033, day 05');
  });

  it('reads a typed value as text, never as a pattern', () => {
    expect(withoutTyped('a.b*c+d and axbxc', ['a.b*c+d'])).toBe('•••• and axbxc');
  });
});
