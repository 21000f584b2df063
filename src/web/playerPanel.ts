/**
 * The player card (DECISIONS §21): a player's ratings by perf, a small SVG chart of their rating history and their
 * recent games, for the page's own player or any player looked up by id. Its traffic is the ratings API and the
 * listing; what it shows is playerState.ts's.
 *
 * ```ts
 * const card = new PlayerCard(id => openGame(id, 'push'));
 * card.follow('ann'); // the page's player, once known; the form looks up others
 * ```
 */
import { api, asApiError } from './api.ts';
import { elements, h, on, showText } from './dom.ts';
import { chartOf, perfRowsOf } from './playerState.ts';

const ui = {
  ...elements('player-card player-card-name player-card-perfs player-card-chart player-card-games player-card-error'),
  ...elements('player-card-form', HTMLFormElement),
  ...elements('player-card-id', HTMLInputElement),
};

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 300;
const HEIGHT = 120;

export class PlayerCard {
  private shown: string | undefined;
  private request = 0;

  constructor(private readonly open: (gameId: string) => void) {
    on(ui.playerCardForm, 'submit', event => {
      event.preventDefault();
      const id = ui.playerCardId.value.trim();
      if (id) void this.show(id);
    });
  }

  /** Shows the page's own player (none: nobody until one is looked up). */
  follow(playerId: string | undefined): void {
    if (playerId && !this.shown) void this.show(playerId);
  }

  /** Loads and draws a player's ratings, history and recent games; late answers are dropped. */
  async show(playerId: string): Promise<void> {
    const request = ++this.request;
    this.shown = playerId;
    showText(ui.playerCardError, '');
    try {
      const [user, history, games] = await Promise.all([
        api.user(playerId),
        api.ratingHistory(playerId),
        api.recentGames(playerId),
      ]);
      if (request !== this.request) return;
      ui.playerCard.hidden = false;
      ui.playerCardName.textContent = user.username;
      ui.playerCardPerfs.replaceChildren(
        ...perfRowsOf(user.perfs).map(row =>
          h(
            'tr',
            { testid: 'player-card-perf' },
            h('th', { text: row.perf }),
            h('td', { text: row.rating }),
            h('td', { text: `${row.games} ${row.games === 1 ? 'game' : 'games'}` }),
          ),
        ),
      );
      drawChart(chartOf(history, WIDTH, HEIGHT));
      ui.playerCardGames.replaceChildren(
        ...games.map(game => {
          const button = h('button', {
            className: 'my-game',
            testid: 'player-card-game',
            text: `${game.white.displayName} – ${game.black.displayName} · ${game.state.status}`,
          });
          button.type = 'button';
          button.addEventListener('click', () => this.open(game.gameId));
          return h('li', {}, button);
        }),
      );
    } catch (error) {
      if (request === this.request) showText(ui.playerCardError, asApiError(error).message);
    }
  }
}

/** The history's polylines in the chart's SVG, with its lowest and highest ratings; empty without a point. */
function drawChart(chart: ReturnType<typeof chartOf>): void {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', `-4 -4 ${WIDTH + 8} ${HEIGHT + 8}`);
  svg.setAttribute('role', 'img');
  svg.setAttribute('aria-label', chart ? `Rating history, ${chart.low} to ${chart.high}` : 'No rated games yet');
  for (const [i, line] of (chart?.lines ?? []).entries()) {
    const polyline = document.createElementNS(SVG, 'polyline');
    polyline.setAttribute('points', line.points);
    polyline.setAttribute('class', `line line-${i}`);
    polyline.dataset.perf = line.name;
    svg.append(polyline);
  }
  ui.playerCardChart.replaceChildren(svg);
}
