// The dashboard's 404 (and other refusals): a page in the frame, with a way back.
import { Layout, withMode } from '../layout.js';
import type { Html, View } from '../layout.js';

export function notFoundPage(v: View, path: string, what: string, title = 'Not found'): Html {
  return (
    <Layout v={v} path={path} title={title}>
      <p>{what}</p>
      <p>
        <a href={withMode('/', v.mode)}>Back to the overview</a>
      </p>
    </Layout>
  );
}
