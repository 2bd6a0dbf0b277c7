// `svc calls …`, with its `links` and `lines` subgroups: one line per leaf.
import { defineGroup, leaf } from '../../kit/define.js';
import * as list from './list.js';
import * as get from './get.js';
import * as start from './start.js';
import * as end from './end.js';
import * as dial from './dial.js';
import * as linksList from './links/list.js';
import * as linksCreate from './links/create.js';
import * as linesList from './lines/list.js';
import * as linesAdd from './lines/add.js';
import * as linesRelease from './lines/release.js';

const links = defineGroup({
  name: 'links',
  summary: 'join links for calls',
  examples: ['svc calls links list', 'svc calls links create --call call_123'],
  commands: [leaf(linksList.command, () => import('./links/list.js')), leaf(linksCreate.command, () => import('./links/create.js'))],
});

const lines = defineGroup({
  name: 'lines',
  summary: 'phone lines',
  examples: ['svc calls lines list', 'svc calls lines add --country US --area-code 415'],
  commands: [
    leaf(linesList.command, () => import('./lines/list.js')),
    leaf(linesAdd.command, () => import('./lines/add.js')),
    leaf(linesRelease.command, () => import('./lines/release.js')),
  ],
});

export default defineGroup({
  name: 'calls',
  summary: 'interpreted calls, links and phone lines',
  examples: ['svc calls list --status active', 'svc calls start --languages en,es', 'svc calls links create --call call_123'],
  commands: [
    leaf(list.command, () => import('./list.js')),
    leaf(get.command, () => import('./get.js')),
    leaf(start.command, () => import('./start.js')),
    leaf(end.command, () => import('./end.js')),
    leaf(dial.command, () => import('./dial.js')),
    links,
    lines,
  ],
});
