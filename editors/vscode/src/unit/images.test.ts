import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { conversationImagePaths, renderMessageImages } from '../shared/images';
import type { UserInput } from '../shared/protocol';
import type { Conversation } from '../shared/state';
import { renderItem } from '../shared/render';

describe('images in a sent message', () => {
  it('draws an attached file as a thumbnail named by its file, escaped', () => {
    const html = renderMessageImages([{ type: 'localImage', path: '/ws/"><script>x</script>.png' }]);
    assert.match(html, /<img class="msg-thumb" data-image-path="\/ws\/&quot;&gt;&lt;script&gt;x&lt;\/script&gt;\.png"/);
    assert.doesNotMatch(html, /<script>/);
  });

  it('names a pasted image as such, not by the file the panel saved it to', () => {
    const html = renderMessageImages([{ type: 'localImage', path: '/storage/pasted-images/pasted-1234.png' }]);
    assert.match(html, /<figcaption>Pasted image<\/figcaption>/);
  });

  it('shows an image data URL, and nothing for another URL', () => {
    const png = 'data:image/png;base64,iVBORw0KGgo=';
    assert.match(renderMessageImages([{ type: 'image', url: png }]), /src="data:image\/png;base64,iVBORw0KGgo="/);
    assert.equal(renderMessageImages([{ type: 'image', url: 'data:text/html;base64,PHNjcmlwdD4=' }]), '');
    assert.equal(renderMessageImages([{ type: 'image', url: 'https://example.com/x.png' }]), '');
  });

  it('keeps the text first and the images out of the attachment labels', () => {
    const html = renderItem({
      type: 'userMessage',
      id: 'u1',
      content: [
        { type: 'text', text: 'Look', text_elements: [] },
        { type: 'localImage', path: '/ws/shot.png' },
      ],
    });
    assert.match(html, /<div class="text">Look<\/div>/);
    assert.doesNotMatch(html, /\[localImage/);
    assert.match(html, /<figcaption>shot\.png<\/figcaption>/);
  });
});

describe('the images a conversation carries', () => {
  it('are the local images of its user messages, nothing else', () => {
    const user = (content: UserInput[]) => ({ type: 'userMessage' as const, id: 'u', content });
    const conversation = {
      threadId: 't',
      title: '',
      pendingUserTexts: [],
      turns: [
        { id: 't1', status: 'completed', items: [user([{ type: 'text', text: 'look', text_elements: [] }, { type: 'localImage', path: '/ws/a.png' }])] },
        { id: 't2', status: 'completed', items: [user([{ type: 'image', url: 'data:image/png;base64,AA==' }, { type: 'mention', name: 'b', path: '/ws/b.png' }]), { type: 'agentMessage', id: 'a', text: '/ws/c.png' }] },
      ],
    } as unknown as Conversation;
    assert.deepEqual([...conversationImagePaths(conversation)], ['/ws/a.png']);
    assert.equal(conversationImagePaths(undefined).size, 0);
  });
});
