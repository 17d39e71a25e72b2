import { describe, expect, it } from 'vitest';
import { ibanValid, luhnValid, redact, Redactor } from './redact';

describe('luhnValid / ibanValid', () => {
  it('accepts known-good numbers and rejects one-digit changes', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(luhnValid('378282246310005')).toBe(true);
    expect(ibanValid('DE89 3704 0044 0532 0130 00')).toBe(true);
    expect(ibanValid('DE89 3704 0044 0532 0130 01')).toBe(false);
    expect(ibanValid('GB82WEST12345698765432')).toBe(true);
    expect(ibanValid('GB82')).toBe(false);
  });
});

describe('redact', () => {
  it.each([
    ['email', 'write to jane.doe+news@example.co.uk today', 'write to [REDACTED:email] today'],
    ['card', 'card 4111 1111 1111 1111 expires', 'card [REDACTED:card] expires'],
    ['card', 'amex 378282246310005.', 'amex [REDACTED:card].'],
    ['card', 'dashed 4242-4242-4242-4242', 'dashed [REDACTED:card]'],
    ['iban', 'IBAN DE89 3704 0044 0532 0130 00 please', 'IBAN [REDACTED:iban] please'],
    ['iban', 'pay GB82WEST12345698765432', 'pay [REDACTED:iban]'],
    ['ssn', 'SSN 123-45-6789.', 'SSN [REDACTED:ssn].'],
    ['ipv4', 'host 192.168.1.10, then', 'host [REDACTED:ipv4], then'],
    ['ipv4', 'ends with 10.0.0.1.', 'ends with [REDACTED:ipv4].'],
    ['ipv6', 'v6 2001:db8::1 up', 'v6 [REDACTED:ipv6] up'],
    ['ipv6', 'link fe80::1ff:fe23:4567:890a', 'link [REDACTED:ipv6]'],
    ['ipv6', 'mapped ::ffff:192.0.2.128 ok', 'mapped [REDACTED:ipv6] ok'],
    ['phone', 'call +1 415-555-0100 now', 'call [REDACTED:phone] now'],
    ['phone', 'call (415) 555-0100', 'call [REDACTED:phone]'],
    ['phone', 'call 415.555.0100', 'call [REDACTED:phone]'],
    ['phone', 'London +44 20 7946 0958', 'London [REDACTED:phone]'],
  ])('redacts %s in %j', (kind, input, expected) => {
    const r = redact(input);
    expect(r.text).toBe(expected);
    expect(r.counts[kind as keyof typeof r.counts]).toBe(1);
  });

  it.each([
    ['a 16-digit number failing Luhn', 'order 1234567812345679 shipped'],
    ['a 16-digit grouped number failing Luhn', 'ref 4111 1111 1111 1112'],
    ['an IBAN-shaped string with a bad checksum', 'DE89 3704 0044 0532 0130 01'],
    ['an invalid SSN area', 'id 000-12-3456 and 666-12-3456 and 123-00-4567'],
    ['an out-of-range IPv4', 'not an ip 256.1.1.1'],
    ['a version string', 'version 1.2.3.4.5'],
    ['a clock time', 'at 10:30:00 sharp'],
    ['C++ scope', 'std::vector<int>'],
    ['years and short numbers', 'from 2019-2024, 12 items, 555-0100'],
    ['a 12-digit number', 'account 123456789012'],
    ['an at sign without domain', 'meet @ noon, user@localhost'],
  ])('leaves %s alone', (_name, input) => {
    const r = redact(input);
    expect(r.text).toBe(input);
    expect(Object.values(r.counts).every((n) => n === 0)).toBe(true);
  });

  it('redacts several kinds at once and counts each', () => {
    const r = redact('a@b.io, b@c.io, 4111111111111111, 10.1.2.3 and 123-45-6789');
    expect(r.text).toBe('[REDACTED:email], [REDACTED:email], [REDACTED:card], [REDACTED:ipv4] and [REDACTED:ssn]');
    expect(r.counts).toMatchObject({ email: 2, card: 1, ipv4: 1, ssn: 1, phone: 0 });
  });

  it('is idempotent: redacted text stays the same', () => {
    const once = redact('mail x@y.com 4111111111111111').text;
    expect(redact(once).text).toBe(once);
  });

  it('Redactor.deep redacts nested strings and accumulates counts', () => {
    const r = new Redactor();
    const out = r.deep({ topic: 'x@y.com', list: ['10.0.0.1', 3], nested: { s: '123-45-6789' } });
    expect(out).toEqual({ topic: '[REDACTED:email]', list: ['[REDACTED:ipv4]', 3], nested: { s: '[REDACTED:ssn]' } });
    expect(r.total).toBe(3);
  });
});
