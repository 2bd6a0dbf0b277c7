// The authorize pages are real HTML; everything echoed into them is escaped.

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

export function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · svc emulator</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}label{display:block;margin:.6rem 0}input[type=email],input[type=password],select{width:100%;padding:.4rem;font:inherit}
button{font:inherit;padding:.5rem 1.2rem;margin-right:.5rem}.error{color:#a00}.muted{color:#666;font-size:.9rem}code{background:#f3f3f3;padding:0 .2rem}
</style>
</head>
<body>
${body}
</body>
</html>`;
}
