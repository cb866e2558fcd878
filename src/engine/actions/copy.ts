/**
 * Puts text on the clipboard: the Clipboard API where the page may use it (https or localhost), else a hidden
 * textarea and execCommand, which still works on plain-http intranet addresses. Answers whether it worked.
 */
export async function copyText(text: string): Promise<boolean> {
    try {
        if (navigator.clipboard?.writeText) {
            await navigator.clipboard.writeText(text);
            return true;
        }
    } catch {
        // Refused (no permission, insecure origin): the textarea below may still do it.
    }
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.focus();
    area.select();
    try {
        return document.execCommand('copy');
    } catch {
        return false;
    } finally {
        area.remove();
    }
}
