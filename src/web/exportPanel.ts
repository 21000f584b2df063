/**
 * The "Position and game" panel: the FEN of the position shown, and the game taken off the page: its FEN or PGN from
 * the export endpoints, copied to the clipboard (with a fallback for pages served over plain http, where the
 * clipboard API is missing) or downloaded as a file, and its address copied. Each button says what happened in the
 * panel's notice.
 *
 * ```ts
 * wireExport(() => session?.id);
 * renderExport(session?.game, controls.export); // the FEN, and the buttons shown while there is a game
 * ```
 */
import { api, asApiError, type GameFull } from './api.ts';
import { el, elements, on, setControl } from './dom.ts';
import type { Control } from './seats.ts';

const ui = { ...elements('fen export-notice'), ...elements('copy-link', HTMLButtonElement) };

/** The buttons that copy or download the FEN or the PGN: `${action}-${kind}` by data-testid. */
const exports = (['fen', 'pgn'] as const).flatMap(kind =>
  (['copy', 'download'] as const).map(action => ({ kind, action, button: el<HTMLButtonElement>(`${action}-${kind}`) })),
);

/** Shows the position's FEN; the buttons as `control` says (seats.ts: shown while there is a game). */
export function renderExport(game: GameFull | undefined, control: Control): void {
  ui.fen.textContent = game ? game.state.fen : '';
  for (const { button } of exports) setControl(button, control);
  setControl(ui.copyLink, control);
}

/** The buttons, for the game `gameId` names when clicked (none: nothing to export). */
export function wireExport(gameId: () => string | undefined): void {
  for (const { kind, action, button } of exports)
    on(button, 'click', () => exportGame(gameId, kind, action, ui.exportNotice));
  on(ui.copyLink, 'click', () => copy(location.href, 'Link', ui.exportNotice));
}

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
