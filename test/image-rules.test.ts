import {
  acceptedFormat,
  addressProblem,
  isNonPublicAddress,
  nameFromFileName,
  nameFromUrl,
  normaliseCategoryName,
  resolveSku,
  urlShapeProblem,
  variantFormat,
  VARIANTS,
} from '../src/domain/images/rules';

describe('image rules', () => {
  test('when a decoder names a format, then only jpg, png, webp and gif are accepted', () => {
    expect(acceptedFormat('jpeg')).toBe('jpg');
    expect(acceptedFormat('png')).toBe('png');
    expect(acceptedFormat('webp')).toBe('webp');
    expect(acceptedFormat('gif')).toBe('gif');
    expect(acceptedFormat('tiff')).toBeNull();
    expect(acceptedFormat('svg')).toBeNull();
    expect(acceptedFormat(undefined)).toBeNull();
  });

  test('when variants are rendered, then they are 150, 600 and 1200 wide at most and gif becomes png', () => {
    expect(VARIANTS.map((v) => [v.name, v.maxWidth])).toEqual([
      ['small', 150],
      ['medium', 600],
      ['large', 1200],
    ]);
    expect(variantFormat('gif')).toBe('png');
    expect(variantFormat('jpg')).toBe('jpg');
  });

  test('when a file name is given, then the name is the base name without the last extension', () => {
    expect(nameFromFileName('ABC-123.png')).toBe('ABC-123');
    expect(nameFromFileName('folder/sub\\SKU.9.large.jpeg')).toBe('SKU.9.large');
    expect(nameFromFileName('noext')).toBe('noext');
    expect(nameFromFileName('.hidden')).toBe('.hidden');
    expect(nameFromFileName(null)).toBe('');
  });

  test('when a URL is given, then the name is its last path segment decoded without extension', () => {
    expect(nameFromUrl('https://cdn.example.com/a/b/Red%20Shoe.jpg?x=1')).toBe('Red Shoe');
    expect(nameFromUrl('https://cdn.example.com/')).toBe('');
    expect(nameFromUrl('not a url')).toBe('');
  });

  test('when extractSkuFromImageName is true, then the image name wins over sku; blank means unlinked', () => {
    expect(resolveSku({ sku: 'OTHER', extractSkuFromImageName: true, imageName: 'SKU-1' })).toBe('SKU-1');
    expect(resolveSku({ sku: ' SKU-2 ', extractSkuFromImageName: false, imageName: 'x' })).toBe('SKU-2');
    expect(resolveSku({ sku: '  ', imageName: 'x' })).toBeNull();
    expect(resolveSku({ sku: null, imageName: 'x' })).toBeNull();
  });

  test('when a category name is normalised, then it is lowercased with spaces as hyphens', () => {
    expect(normaliseCategoryName('  Power  Tools Outdoor ')).toBe('power-tools-outdoor');
    expect(normaliseCategoryName('Shoes')).toBe('shoes');
  });

  test('when a URL is not http(s), then it is refused with a reason', () => {
    expect(urlShapeProblem('ftp://example.com/a.png')).toMatch(/http and https/);
    expect(urlShapeProblem('file:///etc/passwd')).toMatch(/http and https/);
    expect(urlShapeProblem('nonsense')).toMatch(/not a valid URL/);
    expect(urlShapeProblem('https://example.com/a.png')).toBeNull();
    expect(urlShapeProblem('http://example.com/a.png')).toBeNull();
  });

  test('when an address is private, loopback, link-local or otherwise non-public, then it is classified so', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1'])
      expect([ip, isNonPublicAddress(ip)]).toEqual([ip, true]);
    for (const ip of ['8.8.8.8', '93.184.216.34', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])
      expect([ip, isNonPublicAddress(ip)]).toEqual([ip, false]);
  });

  test('when private addresses are not allowed, then a host resolving to any of them is refused; when allowed, it passes', () => {
    expect(addressProblem('localhost', ['127.0.0.1'], false)).toMatch(/private, loopback or link-local/);
    expect(addressProblem('mixed.example', ['8.8.8.8', '10.0.0.5'], false)).toMatch(/10\.0\.0\.5/);
    expect(addressProblem('metadata', ['169.254.169.254'], false)).not.toBeNull();
    expect(addressProblem('cdn.example', ['8.8.8.8'], false)).toBeNull();
    expect(addressProblem('localhost', ['127.0.0.1'], true)).toBeNull();
    expect(addressProblem('nowhere', [], true)).toMatch(/did not resolve/);
  });
});
