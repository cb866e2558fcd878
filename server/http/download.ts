/** UTF-8 byte order mark: spreadsheet programs read a CSV without it in the system's code page and garble Chinese. */
export const BOM = '\uFEFF';

/**
 * Content-Disposition for a download named in Chinese: an ASCII fallback in filename for old clients, the real
 * name in filename* (RFC 6266 / 5987), which every current browser prefers.
 */
export function attachment(name: string, asciiFallback: string): string {
    return `attachment; filename="${asciiFallback}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
