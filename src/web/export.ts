/**
 * Taking a game off the page: its FEN or PGN from the export endpoints, copied to the clipboard (with a fallback
 * for pages served over plain http, where the clipboard API is missing) or downloaded as a file. Each says what
 * happened in `notice`.
 *
 * ```ts
 * await exportGame(() => session?.id, 'pgn', 'download', ui.exportNotice); // game-AbCd1234.pgn
 * await copy(location.href, 'Link', ui.exportNotice);
 * download('game-AbCd1234.pgn', pgn, 'application/x-chess-pgn', ui.exportNotice);
 * ```
 */
import { api, asApiError } from './api.ts';

/**
 * Copies or downloads the FEN or the PGN of the game `gameId` names when called (none: nothing to export), as the
 * service exports it; a refusal's message goes to `notice`.
 */
export async function exportGame(
  gameId: () => string | undefined,
  kind: 'fen' | 'pgn',
  action: 'copy' | 'download',
  notice: HTMLElement,
): Promise<void> {
  const text = await exported(gameId(), kind, notice);
  if (text === undefined) return;
  if (action === 'copy') await copy(text, kind === 'fen' ? 'FEN' : 'PGN', notice);
  else if (kind === 'fen') download(`game-${gameId() ?? 'position'}.fen`, `${text}\n`, 'text/plain', notice);
  else download(`game-${gameId() ?? 'game'}.pgn`, text, 'application/x-chess-pgn', notice);
}

async function exported(id: string | undefined, kind: 'fen' | 'pgn', notice: HTMLElement): Promise<string | undefined> {
  if (!id) return undefined;
  try {
    return kind === 'fen' ? await api.exportFen(id) : await api.exportPgn(id);
  } catch (error) {
    notice.textContent = asApiError(error).message;
    return undefined;
  }
}

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
