/** The inbox's stylesheet: plain CSS, one column that reads the same on a laptop and a phone. */
export const STYLESHEET = `
:root {
  --bg: #f5f6f8; --surface: #fff; --text: #1b2330; --muted: #667085; --line: #e3e6eb;
  --accent: #2459d6; --accent-soft: #e8eefc; --in: #eceff3; --radius: 14px;
  --ok: #157347; --ok-soft: #e3f4ea; --warn: #9a6700; --warn-soft: #fdf3d7; --bad: #b42318; --bad-soft: #fde8e6;
  color-scheme: light;
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; background: var(--bg); color: var(--text); font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
code { font: 12.5px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--in); padding: 1px 5px; border-radius: 5px; overflow-wrap: anywhere; }
h1 { font-size: 22px; margin: 0 0 14px; letter-spacing: -0.01em; }
.muted { color: var(--muted); }
.small { font-size: 13px; }

.top { position: sticky; top: 0; z-index: 2; display: flex; align-items: center; gap: 18px; flex-wrap: wrap;
  padding: 10px max(16px, calc((100vw - 880px) / 2)); background: var(--surface); border-bottom: 1px solid var(--line); }
.brand { font-size: 18px; color: var(--text); font-weight: 500; letter-spacing: -0.02em; }
.brand b { color: var(--accent); }
.brand:hover { text-decoration: none; }
.top nav { display: flex; gap: 4px; }
.top nav a { color: var(--muted); padding: 6px 10px; border-radius: 8px; font-weight: 500; }
.top nav a[aria-current="page"] { color: var(--accent); background: var(--accent-soft); }
.top nav a:hover { text-decoration: none; color: var(--text); }
.who { margin-left: auto; display: flex; align-items: center; gap: 10px; font-size: 13px; color: var(--muted); }
.who form { margin: 0; }
.tag { background: var(--warn-soft); color: var(--warn); border-radius: 999px; padding: 2px 9px; font-size: 12px; font-weight: 600; }
body[data-live="on"] .brand::after { content: "● live"; margin-left: 8px; font-size: 11px; color: var(--ok); vertical-align: 2px; }

main { max-width: 880px; margin: 0 auto; padding: 22px 16px 40px; }

button { font: inherit; font-weight: 600; border: 0; border-radius: 10px; padding: 9px 16px; background: var(--accent); color: #fff; cursor: pointer; }
button:hover { filter: brightness(1.08); }
button:disabled { opacity: .5; cursor: default; }
button.secondary { background: var(--surface); color: var(--accent); border: 1px solid var(--line); padding: 6px 12px; font-size: 13px; }
button.link { background: none; color: var(--accent); padding: 0; font-weight: 500; }
input, textarea, select { font: inherit; color: inherit; width: 100%; padding: 9px 11px; border: 1px solid var(--line); border-radius: 10px; background: var(--surface); }
input:focus, textarea:focus, select:focus { outline: 2px solid var(--accent-soft); border-color: var(--accent); }
label { display: block; font-weight: 600; font-size: 13px; }

.card { background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); padding: 22px; }
.login { max-width: 420px; margin: 8vh auto 0; display: grid; gap: 14px; }
.login h1 { margin: 0; }
.login p { margin: 0; }
.login label input { margin-top: 5px; font-weight: 400; }
.notice { background: var(--accent-soft); border-radius: 10px; padding: 10px 14px; margin: 12px 0; }
.notice.error { background: var(--bad-soft); color: var(--bad); }
.empty { padding: 28px 18px; color: var(--muted); text-align: center; }

.conversations { list-style: none; margin: 0; padding: 0; background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); overflow: hidden; }
.conversations li + li { border-top: 1px solid var(--line); }
.conversations a { display: flex; align-items: center; gap: 12px; padding: 13px 16px; color: inherit; }
.conversations a:hover { background: #fafbfc; text-decoration: none; }
.avatar { flex: none; width: 40px; height: 40px; border-radius: 50%; display: grid; place-items: center; background: var(--accent-soft); color: var(--accent); font-weight: 700; }
.summary { flex: 1; min-width: 0; display: grid; }
.title, .preview { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.title { font-weight: 500; }
.preview { color: var(--muted); font-size: 14px; }
.unread .title { font-weight: 700; }
.unread .preview { color: var(--text); }
.meta { flex: none; display: grid; justify-items: end; gap: 4px; font-size: 12px; color: var(--muted); }
.count { background: var(--accent); color: #fff; border-radius: 999px; min-width: 20px; padding: 1px 7px; text-align: center; font-weight: 700; }

.thread-head { display: flex; gap: 12px; align-items: flex-start; margin-bottom: 8px; }
.thread-head h1 { margin: 0; }
.thread-head p { margin: 2px 0 0; font-size: 13px; }
.back { font-size: 20px; line-height: 1.3; padding: 0 6px; border-radius: 8px; }
.back:hover { background: var(--accent-soft); text-decoration: none; }
.messages { list-style: none; margin: 0; padding: 8px 0; display: flex; flex-direction: column; gap: 14px; }
.message { max-width: min(640px, 88%); display: flex; flex-direction: column; }
.message.out { align-self: flex-end; align-items: flex-end; }
.message.in { align-self: flex-start; align-items: flex-start; }
.from { font-size: 12px; color: var(--muted); margin: 0 0 3px 12px; }
.bubble { padding: 9px 14px; border-radius: 18px; white-space: pre-wrap; overflow-wrap: anywhere; }
.out .bubble { background: var(--accent); color: #fff; border-bottom-right-radius: 6px; }
.in .bubble { background: var(--in); border-bottom-left-radius: 6px; }
.media { display: block; font-size: 13px; color: inherit; text-decoration: underline; overflow-wrap: anywhere; }
.status-line { display: flex; gap: 8px; align-items: center; font-size: 12px; color: var(--muted); margin-top: 4px; }
.status, .state { font-size: 11px; font-weight: 700; letter-spacing: .04em; border-radius: 999px; padding: 1px 8px; background: var(--in); color: var(--muted); }
.s-SENT { background: var(--accent-soft); color: var(--accent); }
.s-DELIVERED { background: #e0f2f1; color: #0f766e; }
.s-READ, .d-delivered { background: var(--ok-soft); color: var(--ok); }
.s-ERROR, .d-failed { background: var(--bad-soft); color: var(--bad); }
.s-RECEIVED { background: #f0e9fb; color: #6d3fc0; }
.d-pending { background: var(--warn-soft); color: var(--warn); }
.d-held { background: var(--warn-soft); color: var(--warn); }
.d-delivering { background: var(--accent-soft); color: var(--accent); }
.error-text { color: var(--bad); font-size: 13px; margin: 4px 0 0; }
.history { font-size: 12.5px; margin-top: 4px; max-width: 100%; }
.history summary, .attempts summary { cursor: pointer; color: var(--muted); }
.history ol { list-style: none; margin: 6px 0 0; padding: 8px 12px; min-width: min(420px, 100%); background: var(--surface); border: 1px solid var(--line); border-radius: 10px; display: grid; gap: 5px; text-align: left; }
.history li { display: flex; flex-wrap: wrap; gap: 4px 8px; align-items: baseline; }
.history time { color: var(--muted); font-variant-numeric: tabular-nums; }
.history .source { color: var(--muted); }
.history .ignored { color: var(--muted); }
.history .ignored .status { text-decoration: line-through; }
.history .outcome::before { content: "· "; color: var(--muted); }
.history .applied .outcome { color: var(--ok); }

.composer { position: sticky; bottom: 0; margin-top: 18px; background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); padding: 12px; box-shadow: 0 -6px 18px rgba(16, 24, 40, .06); }
.composer .as { font-weight: 400; font-size: 13px; color: var(--muted); margin-bottom: 8px; display: flex; gap: 6px; align-items: center; flex-wrap: wrap; }
.composer .as b { color: var(--text); }
.composer select { width: auto; padding: 4px 8px; }
.compose-row { display: flex; gap: 8px; align-items: flex-end; }
.compose-row textarea { resize: vertical; min-height: 44px; }

.deliveries { list-style: none; margin: 0; padding: 0; display: grid; gap: 12px; }
.delivery { background: var(--surface); border: 1px solid var(--line); border-radius: var(--radius); padding: 14px 16px; display: grid; gap: 6px; }
.delivery p { margin: 0; }
.delivery form { margin: 0; }
.delivery-head { display: flex; gap: 10px; align-items: center; flex-wrap: wrap; }
.delivery-head .event { font-weight: 600; }
.delivery-head time { margin-left: auto; font-size: 12px; color: var(--muted); }
.delivery-head button { padding: 4px 12px; }
.url { font: 13px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; }
.attempts { font-size: 13px; }
.attempts table { width: 100%; border-collapse: collapse; margin: 8px 0; font-size: 12.5px; }
.attempts th, .attempts td { text-align: left; padding: 5px 8px 5px 0; border-bottom: 1px solid var(--line); vertical-align: top; }
.attempts th { color: var(--muted); font-weight: 600; }
.excerpt { overflow-wrap: anywhere; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.payload { background: #0f172a; color: #e2e8f0; border-radius: 10px; padding: 10px 12px; font-size: 12px; overflow-x: auto; max-height: 320px; }

@media (max-width: 600px) {
  body { font-size: 15px; }
  .top { gap: 6px 12px; padding: 8px 12px 0; }
  .top nav { order: 3; flex-basis: 100%; margin: 0 -4px; }
  .top nav a { border-radius: 8px 8px 0 0; padding: 7px 12px; }
  .who .email { display: none; }
  main { padding: 14px 10px 28px; }
  h1 { font-size: 19px; }
  .conversations a { padding: 11px 12px; }
  .message { max-width: 92%; }
  .history .outcome { flex-basis: 100%; }
  .history .outcome::before { content: none; }
  .attempts th:nth-child(3), .attempts td:nth-child(3) { display: none; }
  .delivery-head::after { content: ""; order: 4; flex-basis: 100%; }
  .delivery-head time { margin-left: 0; order: 5; }
  .delivery-head form { margin-left: auto; order: 6; }
  .delivery .handle { display: none; }
}
`;
