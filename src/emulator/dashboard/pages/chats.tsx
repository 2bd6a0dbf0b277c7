// Chats: the mode's chats, and a chat's own page (its messages, live; Close chat).
import { ActionButton, Layout, When, ObjectPage } from '../layout.js';
import type { Html, View } from '../layout.js';
import { ObjectEvents } from './events.js';
import { ObjectRequests } from './requests.js';
import { DetailCell, PAGE_ROWS, Table, orgName, pageOf, storedIn } from '../parts.js';

export function chatsPage(v: View): Html {
  const { state } = v;
  const { shown: chats, older } = pageOf(v, storedIn(state.chats, v.mode), '/chats');
  const messageCount = new Map<string, number>();
  for (const m of state.messages.values()) messageCount.set(m.obj.chat_id, (messageCount.get(m.obj.chat_id) ?? 0) + 1);
  return (
    <Layout v={v} path="/chats" title="Chats">
      <div id="chats" data-live="">
        <Table caption={`Newest first, ${PAGE_ROWS} a page.`} columns={['Chat', 'Organization', 'Status', 'Subject', 'Language', 'Messages', 'Started']}>
          {chats.map(({ org_id, obj }) => (
            <tr data-key={obj.id}>
              <DetailCell v={v} list="/chats" id={obj.id} />
              <td>{orgName(state, org_id)}</td>
              <td>{obj.status}</td>
              <td>{obj.subject ?? '—'}</td>
              <td>{obj.language}</td>
              <td>{messageCount.get(obj.id) ?? 0}</td>
              <td>
                <When at={obj.created_at} />
              </td>
            </tr>
          ))}
        </Table>
        {chats.length === 0 ? <p class="muted">No {v.mode} chats yet.</p> : null}
        {older ? (
          <p>
            <a href={older}>Older chats</a>
          </p>
        ) : null}
      </div>
    </Layout>
  );
}

export function chatPage(v: View, id: string): Html | null {
  const { state } = v;
  const stored = state.chats.get(id);
  if (!stored || stored.obj.livemode !== (v.mode === 'live')) return null;
  const chat = stored.obj;
  const messages = [...state.messages.values()].filter((m) => m.obj.chat_id === id).sort((a, b) => a.seq - b.seq);
  return (
    <ObjectPage v={v} list="chats" id={id} title={`Chat ${id}`} back="All chats" live="chat">
      <dl>
        <dt>Organization</dt>
        <dd>{orgName(state, stored.org_id)}</dd>
        <dt>Status</dt>
        <dd>{chat.status}</dd>
        <dt>Subject</dt>
        <dd>{chat.subject ?? '—'}</dd>
        <dt>Language</dt>
        <dd>{chat.language}</dd>
        <dt>Stream</dt>
        <dd>
          <code>GET /v1/chats/{id}/stream</code> (<code>svc chats stream {id}</code>); this page follows it live
        </dd>
      </dl>
      {chat.status === 'open' ? (
        <ActionButton v={v} action={`/_dashboard/chats/${id}/close`} label="Close chat" id="close-chat" danger confirm={`Close ${id}?`} />
      ) : null}
      <h2>Messages</h2>
      {messages.length === 0 ? (
        <p class="muted">No messages yet.</p>
      ) : (
        <ol class="log">
          {messages.map(({ obj }) => (
            <li>
              <div class="card">
                <div class="muted">
                  <When at={obj.created_at} /> · {obj.kind} · {obj.language}
                </div>
                {obj.kind === 'voice' ? <p>🎤 voice message — transcript: {obj.transcript ?? '(none)'}</p> : <p>{obj.text}</p>}
                {obj.translation ? (
                  <p class="muted">
                    {obj.translation.language}: {obj.translation.text}
                  </p>
                ) : null}
              </div>
            </li>
          ))}
        </ol>
      )}
      <ObjectEvents v={v} id={id} />
      <ObjectRequests v={v} id={id} />
    </ObjectPage>
  );
}
