/**
 * The promotion picker: four pieces over the board in the file of the promotion square, from the edge
 * inwards, as on lichess. Buttons, so it works by keyboard (Tab, Enter; q, r, b, n; Escape cancels);
 * clicking outside the pieces cancels too.
 *
 * ```ts
 * const picker = new PromotionPicker(overlayElement);
 * picker.open({ to: 'a8', color: 'white', orientation: 'white' }, piece => send(`a7a8${piece}`), () => reset());
 * ```
 */
import type { Color } from './api.ts';

export type PromotionPiece = 'q' | 'r' | 'b' | 'n';

const PIECES: Array<{ char: PromotionPiece; role: string; name: string }> = [
  { char: 'q', role: 'queen', name: 'Queen' },
  { char: 'n', role: 'knight', name: 'Knight' },
  { char: 'r', role: 'rook', name: 'Rook' },
  { char: 'b', role: 'bishop', name: 'Bishop' },
];

export interface PromotionRequest {
  to: string; // the promotion square, e.g. 'a8'
  color: Color; // the promoting side
  orientation: Color; // the board's orientation
}

export class PromotionPicker {
  private onCancel: (() => void) | undefined;
  private readonly keydown = (event: KeyboardEvent) => this.onKey(event);
  private current: PromotionRequest | undefined;

  constructor(private readonly overlay: HTMLElement) {
    overlay.addEventListener('click', event => {
      if (event.target === overlay) this.cancel();
    });
  }

  get isOpen(): boolean {
    return this.current !== undefined;
  }

  get request(): PromotionRequest | undefined {
    return this.current;
  }

  open(request: PromotionRequest, onChoose: (piece: PromotionPiece) => void, onCancel: () => void): void {
    this.close();
    this.current = request;
    this.onCancel = onCancel;
    const file = request.to.charCodeAt(0) - 97; // 0..7
    const fromLeft = request.orientation === 'white' ? file : 7 - file;
    const atTop = request.color === request.orientation; // the promoting side plays up the board
    this.overlay.replaceChildren();
    PIECES.forEach((piece, index) => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'promotion-choice';
      button.dataset.testid = `promote-${piece.char}`;
      button.setAttribute('aria-label', `Promote to ${piece.name.toLowerCase()}`);
      button.title = `${piece.name} (${piece.char})`;
      button.style.left = `${fromLeft * 12.5}%`;
      button.style.top = `${(atTop ? index : 7 - index) * 12.5}%`;
      const image = document.createElement('piece');
      image.className = `${piece.role} ${request.color}`;
      button.append(image);
      button.addEventListener('click', () => {
        this.close();
        onChoose(piece.char);
      });
      this.overlay.append(button);
    });
    this.overlay.hidden = false;
    document.addEventListener('keydown', this.keydown, true);
    this.overlay.querySelector<HTMLButtonElement>('button')?.focus();
  }

  /** Closes without a choice and tells the opener. */
  cancel(): void {
    const onCancel = this.onCancel;
    this.close();
    onCancel?.();
  }

  /** Closes without telling anyone (the position changed under it). */
  close(): void {
    this.current = undefined;
    this.onCancel = undefined;
    this.overlay.hidden = true;
    this.overlay.replaceChildren();
    document.removeEventListener('keydown', this.keydown, true);
  }

  private onKey(event: KeyboardEvent): void {
    if (event.key === 'Escape') {
      event.preventDefault();
      this.cancel();
      return;
    }
    const key = event.key.toLowerCase();
    const button = this.overlay.querySelector<HTMLButtonElement>(`[data-testid="promote-${key}"]`);
    if (button && !(event.target instanceof HTMLInputElement || event.target instanceof HTMLTextAreaElement)) {
      event.preventDefault();
      button.click();
    }
  }
}
