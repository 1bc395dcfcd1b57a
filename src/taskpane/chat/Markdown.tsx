// Markdown from the network, rendered as Preact nodes in a safe subset: paragraphs, emphasis,
// strong, inline code, code blocks, lists, headings (as small headings), quotes and breaks. Raw
// HTML is shown as text, never parsed; links show their text and address as text (no navigation
// away from the pane); images show their alt text. Parsing is mdast-util-from-markdown (CommonMark).
import { fromMarkdown } from "mdast-util-from-markdown";
import type { Nodes, RootContent } from "mdast";
import type { ComponentChildren } from "preact";

function children(nodes: RootContent[]): ComponentChildren {
  return nodes.map((n, i) => <Node key={i} node={n} />);
}

function Node({ node }: { node: Nodes }): preact.JSX.Element | null {
  switch (node.type) {
    case "root":
      return <>{children(node.children)}</>;
    case "paragraph":
      return <p>{children(node.children)}</p>;
    case "text":
      return <>{node.value}</>;
    case "strong":
      return <strong>{children(node.children)}</strong>;
    case "emphasis":
      return <em>{children(node.children)}</em>;
    case "delete":
      return <s>{children(node.children)}</s>;
    case "inlineCode":
      return <code>{node.value}</code>;
    case "code":
      return (
        <pre class="cb-chat-code">
          <code>{node.value}</code>
        </pre>
      );
    case "heading":
      return node.depth <= 2 ? <h3>{children(node.children)}</h3> : <h4>{children(node.children)}</h4>;
    case "list":
      return node.ordered ? <ol start={node.start ?? 1}>{children(node.children)}</ol> : <ul>{children(node.children)}</ul>;
    case "listItem":
      // Tight list items hold paragraphs; render their content inline.
      return (
        <li>
          {node.children.map((c, i) =>
            c.type === "paragraph" && node.spread !== true ? <span key={i}>{children(c.children)}</span> : <Node key={i} node={c} />,
          )}
        </li>
      );
    case "blockquote":
      return <blockquote>{children(node.children)}</blockquote>;
    case "break":
      return <br />;
    case "thematicBreak":
      return <hr />;
    case "link":
      return (
        <span class="cb-chat-link">
          {children(node.children)}
          {node.url && <span class="cb-subtle-text"> ({node.url})</span>}
        </span>
      );
    case "linkReference":
      return <>{children(node.children)}</>;
    case "image":
    case "imageReference":
      return node.alt ? <span>[{node.alt}]</span> : null;
    case "html":
      return <>{node.value}</>;
    default:
      return "value" in node && typeof node.value === "string" ? (
        <>{node.value}</>
      ) : "children" in node ? (
        <>{children(node.children as RootContent[])}</>
      ) : null;
  }
}

export function Markdown({ text }: { text: string }) {
  return (
    <div class="cb-chat-md">
      <Node node={fromMarkdown(text)} />
    </div>
  );
}
