/**
 * Taking a game off the page: copying text to the clipboard (with a fallback for pages served over plain
 * http, where the clipboard API is missing) and downloading it as a file. Each says what happened in `notice`.
 *
 * ```ts
 * await copy(fen, 'FEN', ui.exportNotice);
 * download('game-AbCd1234.pgn', pgn, 'application/x-chess-pgn', ui.exportNotice);
 * ```
 */

export async function copy(text: string, what: string, notice: HTMLElement): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // no clipboard API (a page served over plain http to another machine): select and copy
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'offscreen';
    document.body.append(area);
    area.select();
    const copied = document.execCommand('copy');
    area.remove();
    if (!copied) {
      notice.textContent = `${what} could not be copied`;
      return;
    }
  }
  notice.textContent = `${what} copied`;
}

export function download(name: string, text: string, type: string, notice: HTMLElement): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.className = 'offscreen';
  document.body.append(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 30_000);
  notice.textContent = `${name} downloaded`;
}
