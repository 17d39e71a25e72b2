import { describe, expect, it } from 'vitest';
import { cnResidentIdValid, ibanValid, luhnValid } from './checksums';

/** An IBAN with the mod-97 check digits ISO 13616 computes for `bban`, whatever its length. */
function withCheckDigits(country: string, bban: string): string {
  const digits = [...`${bban}${country}00`].map((c) => (c >= 'A' ? String(c.charCodeAt(0) - 55) : c)).join('');
  const check = 98 - Number(BigInt(digits) % 97n);
  return `${country}${String(check).padStart(2, '0')}${bban}`;
}

describe('checksums', () => {
  it('luhnValid and ibanValid accept known-good numbers and reject one-digit changes', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
    expect(luhnValid('378282246310005')).toBe(true);
    expect(ibanValid('DE89 3704 0044 0532 0130 00')).toBe(true);
    expect(ibanValid('DE89 3704 0044 0532 0130 01')).toBe(false);
    expect(ibanValid('GB82WEST12345698765432')).toBe(true);
    expect(ibanValid('GB82')).toBe(false);
  });

  it('ibanValid takes lower case and dashes, and wants the length registered for the country', () => {
    expect(ibanValid('de89-3704-0044-0532-0130-00')).toBe(true);
    // Right check digits on the wrong length for Germany (22), and on a country with no IBAN.
    expect(ibanValid(withCheckDigits('DE', '370400440532013000123'))).toBe(false);
    expect(ibanValid(withCheckDigits('ZZ', '370400440532013000'))).toBe(false);
    expect(ibanValid(withCheckDigits('DE', '370400440532013000'))).toBe(true);
  });

  it('cnResidentIdValid checks the ISO 7064 MOD 11-2 character and the birth date', () => {
    // The example of GB 11643-1999 (check X), and ids whose check is a digit.
    expect(cnResidentIdValid('11010519491231002X')).toBe(true);
    expect(cnResidentIdValid('11010519491231002x')).toBe(true);
    expect(cnResidentIdValid('440524188001010014')).toBe(true);
    expect(cnResidentIdValid('110105194912310021')).toBe(false);
    expect(cnResidentIdValid('11010519491231003X')).toBe(false);
    // A right check character on a date that does not exist (February 30th).
    const body = '11010519490230002';
    const weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
    const check = '10X98765432'[[...body].reduce((s, d, i) => s + Number(d) * weights[i]!, 0) % 11];
    expect(cnResidentIdValid(`${body}${check}`)).toBe(false);
    expect(cnResidentIdValid('1101051949123100')).toBe(false);
  });
});
