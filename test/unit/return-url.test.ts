import { isAllowedReturnUrl, normalizeOrigin, originOf } from '../../src/domain/organizations/return-url';

describe('return URL origins', () => {
  test('when the URL is on an allowed origin, then it is allowed, whatever its path and query', () => {
    expect(isAllowedReturnUrl('https://shop.example.com/pay/return?x=1', ['https://shop.example.com'])).toBe(true);
    expect(isAllowedReturnUrl('https://SHOP.example.com:443/a', ['https://shop.example.com'])).toBe(true);
  });
  test('when the host, scheme or port differs, or the URL carries credentials, then it is refused', () => {
    const allowed = ['https://shop.example.com'];
    expect(isAllowedReturnUrl('https://shop.example.com.evil.net/a', allowed)).toBe(false);
    expect(isAllowedReturnUrl('http://shop.example.com/a', allowed)).toBe(false);
    expect(isAllowedReturnUrl('https://shop.example.com:8443/a', allowed)).toBe(false);
    expect(isAllowedReturnUrl('https://shop.example.com@evil.net/a', allowed)).toBe(false);
    expect(isAllowedReturnUrl('javascript:alert(1)', allowed)).toBe(false);
    expect(originOf('https://user:pw@shop.example.com/')).toBeNull();
  });
  test('when an admin enters an origin, then only a bare http(s) origin is accepted', () => {
    expect(normalizeOrigin('https://Shop.Example.com/')).toBe('https://shop.example.com');
    expect(normalizeOrigin('https://shop.example.com/path')).toBeNull();
    expect(normalizeOrigin('ftp://shop.example.com')).toBeNull();
  });
});
