/**
 * The chat panel (DECISIONS §17): hidden without a chat (the game on the board has no seat of the page's player);
 * else the players' room, live, and a box to write in it. Its lines are drawn anew when they were replaced (a
 * history came) and only appended to otherwise, so that a screen reader's live region announces each new line once.
 * Its traffic is chat.ts's; its rules chatState.ts's.
 *
 * ```ts
 * const chatPanel = new ChatPanel(chat);
 * chatPanel.render(); // after every change of the chat
 * ```
 */
import { asApiError } from './api.ts';
import type { ChatFeed } from './chat.ts';
import { chatTextProblem, type ChatState } from './chatState.ts';
import { elements, h, onSubmit, showConnection, showText } from './dom.ts';
import { showError } from './errors.ts';

const ui = {
  ...elements('chat chat-connection chat-problem chat-lines chat-empty chat-error'),
  ...elements('chat-form', HTMLFormElement),
  ...elements('chat-input', HTMLInputElement),
  ...elements('chat-send', HTMLButtonElement),
};

export class ChatPanel {
  /** What the list shows: the chat and generation drawn, and the lines appended since. */
  private drawn: { chat: ChatState | undefined; generation: number; added: number } = {
    chat: undefined,
    generation: -1,
    added: 0,
  };

  /** Sends what is written in the box. */
  constructor(private readonly feed: ChatFeed) {
    onSubmit(ui.chatForm, () => this.send());
  }

  render(): void {
    const { chat, status, problem } = this.feed;
    ui.chat.hidden = chat === undefined;
    showConnection(ui.chatConnection, status);
    showText(ui.chatProblem, problem ?? '');
    if (!chat) {
      if (this.drawn.chat) ui.chatLines.replaceChildren();
      this.drawn = { chat: undefined, generation: -1, added: 0 };
      return;
    }
    const list = ui.chatLines;
    const atBottom = list.scrollHeight - list.scrollTop - list.clientHeight < 24;
    if (this.drawn.chat !== chat || this.drawn.generation !== chat.generation) {
      list.replaceChildren(...chat.lines.map(lineItem));
    } else {
      const fresh = chat.added - this.drawn.added;
      list.append(...chat.lines.slice(Math.max(0, chat.lines.length - fresh)).map(lineItem));
      while (list.children.length > chat.lines.length) list.firstElementChild!.remove();
    }
    this.drawn = { chat, generation: chat.generation, added: chat.added };
    ui.chatEmpty.hidden = chat.lines.length > 0 || chat.loading;
    if (atBottom) list.scrollTop = list.scrollHeight; // follow the latest line, unless the reader scrolled up
  }

  private async send(): Promise<void> {
    const text = ui.chatInput.value;
    const problem = chatTextProblem(text);
    showError(ui.chatError, problem);
    if (problem) return;
    ui.chatSend.disabled = true;
    try {
      await this.feed.send(text);
      ui.chatInput.value = ''; // the line comes back on the stream, like the opponent's
    } catch (error) {
      showError(ui.chatError, asApiError(error));
    } finally {
      ui.chatSend.disabled = false;
      ui.chatInput.focus();
    }
  }
}

const lineItem = (line: { user: string; text: string }): HTMLLIElement =>
  h(
    'li',
    { className: 'chat-line', testid: 'chat-line' },
    h('span', { className: 'chat-user', text: line.user }),
    h('span', { className: 'chat-text', text: line.text }),
  );
