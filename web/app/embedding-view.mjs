// Pictures of embeddings: one heat strip per vector (a cell per dimension,
// blue negative, red positive, scaled to the largest magnitude shown) and
// their difference, on canvases that scale to the page width.
function colour(v) {
  const t = Math.max(-1, Math.min(1, v));
  const a = Math.round(255 * (1 - Math.abs(t)));
  return t >= 0 ? `rgb(255,${a},${a})` : `rgb(${a},${a},255)`;
}

export function drawStrip(canvas, values, scale) {
  const ctx = canvas.getContext('2d');
  const n = values.length;
  const cols = Math.min(n, 64);
  const rows = Math.ceil(n / cols);
  const cell = Math.floor(canvas.width / cols);
  canvas.height = rows * cell;
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  for (let i = 0; i < n; i++) {
    ctx.fillStyle = colour(values[i] / scale);
    ctx.fillRect((i % cols) * cell, Math.floor(i / cols) * cell, cell - 1, cell - 1);
  }
  canvas.dataset.dims = String(n);
}

export function drawComparison({ query, match, canvases }) {
  let scale = 1e-9;
  for (let i = 0; i < query.length; i++) scale = Math.max(scale, Math.abs(query[i]), Math.abs(match[i]));
  drawStrip(canvases.query, query, scale);
  drawStrip(canvases.match, match, scale);
  drawStrip(canvases.diff, query.map((q, i) => q - match[i]), scale);
}
