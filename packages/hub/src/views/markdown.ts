import MarkdownIt from 'markdown-it';

/**
 * READMEs are written by any publisher and read by everyone: raw HTML in them is shown as
 * text, never run (html: false), and markdown-it's link check refuses javascript:, vbscript:
 * and data: addresses other than images. Images from elsewhere are not fetched: the pages'
 * content security policy allows this hub's own only.
 */
const renderer = new MarkdownIt({ html: false, linkify: true, typographer: false });

// Links leave the hub without telling the target where they came from or giving it a handle.
const defaultLinkOpen =
  renderer.renderer.rules.link_open ??
  ((tokens, index, options, _env, self) => self.renderToken(tokens, index, options));
renderer.renderer.rules.link_open = (tokens, index, options, env, self) => {
  tokens[index]?.attrSet('rel', 'nofollow noopener noreferrer');
  return defaultLinkOpen(tokens, index, options, env, self);
};

// A table's headings say what they head, as the page's own tables do (a Markdown table's
// headings are its first row: they head columns).
renderer.renderer.rules.th_open = (tokens, index, options, _env, self) => {
  tokens[index]?.attrSet('scope', 'col');
  return self.renderToken(tokens, index, options);
};

export function renderMarkdown(text: string): string {
  return renderer.render(text);
}
