/**
 * The chart of one run as hand-written SVG (no plotting dependency): requests/s per scenario on
 * the left, p99 latency on the right, one horizontal bar each. `npx tsx bench/chart.ts` redraws
 * bench/results/latest.svg from latest.json.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BenchReport } from './report.ts';

type Bar = { label: string; value: number; text: string };

const ROW = 28;
const LABEL_WIDTH = 270;
const BAR_WIDTH = 260;
const PANEL_WIDTH = LABEL_WIDTH + BAR_WIDTH + 100;
const TOP = 64;

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function panel(title: string, bars: Bar[], x: number, color: string): string {
  const max = Math.max(...bars.map((bar) => bar.value), 1);
  const rows = bars.map((bar, i) => {
    const y = TOP + i * ROW;
    const width = Math.max(1, Math.round((bar.value / max) * BAR_WIDTH));
    return [
      `<text x="${x + LABEL_WIDTH - 8}" y="${y + 15}" text-anchor="end">${escapeXml(bar.label)}</text>`,
      `<rect x="${x + LABEL_WIDTH}" y="${y + 3}" width="${width}" height="${ROW - 8}" fill="${color}"/>`,
      `<text x="${x + LABEL_WIDTH + width + 6}" y="${y + 15}">${escapeXml(bar.text)}</text>`,
    ].join('');
  });
  return `<text x="${x + 10}" y="${TOP - 16}" font-weight="bold">${escapeXml(title)}</text>${rows.join('\n')}`;
}

export function renderChart(report: BenchReport): string {
  const throughput: Bar[] = [
    ...report.scenarios.map((s) => ({
      label: s.name,
      value: s.requestsPerSecond,
      text: `${s.requestsPerSecond.toLocaleString('en-US')}/s`,
    })),
    {
      label: 'webhook dispatch',
      value: report.dispatch.deliveriesPerSecond,
      text: `${report.dispatch.deliveriesPerSecond.toLocaleString('en-US')}/s`,
    },
  ];
  const latency: Bar[] = report.scenarios.map((s) => ({ label: s.name, value: s.latencyMs.p99, text: `${s.latencyMs.p99} ms` }));
  const height = TOP + throughput.length * ROW + 36;
  const width = PANEL_WIDTH * 2;
  const caption = `${report.machine.cpus}, Node ${report.machine.node}, ${report.settings.connections} connections, ${report.seededMessages.toLocaleString('en-US')} messages, commit ${report.commit}, ${report.date.slice(0, 10)}`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="10" y="20" font-size="14" font-weight="bold">textrelay benchmark</text>`,
    panel('Throughput (requests/s; dispatch: deliveries/s)', throughput, 0, '#3b7dd8'),
    panel('p99 latency (ms)', latency, PANEL_WIDTH, '#d8793b'),
    `<text x="10" y="${height - 12}" fill="#555">${escapeXml(caption)}</text>`,
    '</svg>',
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const report = JSON.parse(readFileSync(new URL('results/latest.json', import.meta.url), 'utf8')) as BenchReport;
  writeFileSync(new URL('results/latest.svg', import.meta.url), renderChart(report));
}
