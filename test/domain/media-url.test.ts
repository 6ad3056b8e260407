import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkMediaUrl, isHttpUrl } from '../../src/domain/media-url.ts';

describe('checkMediaUrl: acceptable links', () => {
  it.each([
    ['https://cdn.example.com/a/cat.jpg'],
    ['http://x.io/pic.PNG'],
    ['https://cdn.example.com/a/cat.jpg?w=200'],
    ['https://cdn.example.com/a/cat.jpg?w=200&h=100&format=webp'],
    ['https://cdn.example.com/a/cat.jpg#frag'],
    ['https://cdn.example.com:8443/clip.mp4'],
    ['https://cdn.example.com/archive.tar.gz'],
    ['https://cdn.example.com/doc.pdf?download=1'],
    ['HTTPS://CDN.EXAMPLE.COM/A/CAT.JPG'],
  ])('%s is fine', (url) => {
    expect(checkMediaUrl(url)).toBeNull();
  });
});

describe('checkMediaUrl: not_http', () => {
  it.each([
    ['ftp://cdn.example.com/a/cat.jpg'],
    ['file:///etc/cat.jpg'],
    ['data:image/png;base64,iVBORw0KGgo='],
    ['javascript:alert(1).jpg'],
    ['mailto:someone@example.com'],
    ['not a url'],
    ['cat.jpg'],
    ['/a/cat.jpg'],
    ['//cdn.example.com/a/cat.jpg'],
    ['http://'],
    [''],
  ])('%j is not_http', (url) => {
    expect(checkMediaUrl(url)).toBe('not_http');
  });
});

describe('checkMediaUrl: no_extension', () => {
  it.each([
    ['https://x.io/image'],
    ['https://x.io/dir/'],
    ['https://x.io'],
    ['https://x.io/'],
    ['https://x.io/image?format=jpg'], // the extension must be on the path, not the query
    ['https://x.io/image#cat.jpg'],
    ['https://x.io/file.'],
    ['https://x.io/a.jpg/'],
  ])('%s has no_extension', (url) => {
    expect(checkMediaUrl(url)).toBe('no_extension');
  });
});

describe('checkMediaUrl: signed', () => {
  const signingParams = [
    'X-Amz-Signature',
    'X-Amz-Credential',
    'X-Amz-Security-Token',
    'X-Amz-Expires',
    'X-Goog-Signature',
    'X-Goog-Credential',
    'Signature',
    'Expires',
    'sig',
    'token',
    'se',
  ];

  const caseVariants = (name: string): string[] => [
    name,
    name.toLowerCase(),
    name.toUpperCase(),
    name
      .split('')
      .map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase()))
      .join(''),
  ];

  it.each(signingParams.flatMap((p) => caseVariants(p).map((variant) => [variant] as const)))('refuses a link signed with %s', (param) => {
    expect(checkMediaUrl(`https://bucket.s3.amazonaws.com/a/cat.jpg?${param}=abc123`)).toBe('signed');
  });

  it('names from the brief in their usual case', () => {
    for (const param of ['X-Amz-Signature', 'x-amz-credential', 'Signature', 'Expires', 'sig', 'token', 'X-Goog-Signature', 'se']) {
      expect(checkMediaUrl(`https://cdn.example.com/cat.jpg?${param}=1`)).toBe('signed');
    }
  });

  it('finds the signing param among harmless ones, and even with an empty value', () => {
    expect(checkMediaUrl('https://cdn.example.com/cat.jpg?w=200&X-Amz-Signature=deadbeef&h=3')).toBe('signed');
    expect(checkMediaUrl('https://cdn.example.com/cat.jpg?token=')).toBe('signed');
    expect(checkMediaUrl('https://cdn.example.com/cat.jpg?sv=2022&se=2026-01-01&sig=xyz')).toBe('signed');
  });

  it('reports signed before no_extension', () => {
    expect(checkMediaUrl('https://x.io/image?sig=abc')).toBe('signed');
  });

  it('does not flag parameters that merely contain a signing name', () => {
    expect(checkMediaUrl('https://cdn.example.com/cat.jpg?signed_by=me')).toBeNull();
    expect(checkMediaUrl('https://cdn.example.com/cat.jpg?tokens=1')).toBeNull();
    expect(checkMediaUrl('https://cdn.example.com/cat.jpg?session=1')).toBeNull();
    expect(checkMediaUrl('https://cdn.example.com/cat.jpg?q=signature')).toBeNull();
  });

  it('flags any case mix of any signing parameter (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...signingParams), fc.array(fc.boolean(), { minLength: 20, maxLength: 20 }), (param, upper) => {
        const mixed = param
          .split('')
          .map((c, i) => (upper[i] ? c.toUpperCase() : c.toLowerCase()))
          .join('');
        expect(checkMediaUrl(`https://cdn.example.com/cat.jpg?a=1&${mixed}=v`)).toBe('signed');
      }),
    );
  });
});

describe('isHttpUrl', () => {
  it.each([
    ['https://example.com'],
    ['http://example.com'],
    ['https://example.com/hook?x=1'],
    ['http://localhost:3000/callback'],
    ['http://127.0.0.1:8080/'],
    ['HTTPS://EXAMPLE.COM/'],
  ])('%s is an http(s) URL', (url) => {
    expect(isHttpUrl(url)).toBe(true);
  });

  it.each([
    ['ftp://example.com'],
    ['file:///etc/passwd'],
    ['mailto:someone@example.com'],
    ['javascript:alert(1)'],
    ['example.com'],
    ['/relative/path'],
    ['http://'],
    ['not a url'],
    [''],
  ])('%j is not an http(s) URL', (url) => {
    expect(isHttpUrl(url)).toBe(false);
  });
});
