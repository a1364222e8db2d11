import {
  acceptedFormat,
  nameFromFileName,
  nameFromUrl,
  normaliseCategoryName,
  resolveSku,
  urlShapeProblem,
  variantFormat,
  VARIANTS,
} from '../../src/domain/images/rules';

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
});
