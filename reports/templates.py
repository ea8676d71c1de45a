"""Jinja2 templates of the HTML and Markdown reports (kept in Python so the package needs
no data files). Both iterate over the same ``sections``: title, text, tables, figures,
preformatted blocks and notes."""

from __future__ import annotations

import jinja2

from acceptability.reports.escape import fenced, markdown_finalize, markdown_link

HTML = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }}</title>
<style>
/* One column at any width: tables and program output scroll inside their own boxes (a
   table's first column stays in view), nothing else is wider than the window. */
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; font-size: 16px;
       max-width: 1300px; margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.45;
       overflow-wrap: break-word; }
h1 { border-bottom: 2px solid #444; padding-bottom: .2em; }
h2 { border-bottom: 1px solid #ccc; margin-top: 2em; }
nav ol { columns: 2; }
.scroll { overflow-x: auto; max-width: 100%; }
table.table { border-collapse: separate; border-spacing: 0; margin: .6em 0 1.2em;
              font-size: .8em; }
table.table th, table.table td { padding: .25em .45em; border-bottom: 1px solid #ddd;
                                 text-align: right; }
table.table td { white-space: nowrap; }
table.table th { border-bottom: 2px solid #444; background: #f6f6f6; vertical-align: bottom; }
table.table td:first-child, table.table th:first-child { text-align: left; position: sticky;
                                                         left: 0; z-index: 1; }
table.table td:first-child { background: #fff; box-shadow: inset -1px 0 0 #ddd; }
figure { margin: 1em 0 2em; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption, .caption { font-size: .9em; color: #444; }
.note { background: #fff8e1; border-left: 4px solid #f0b400; padding: .4em .8em; }
pre { background: #f6f6f6; padding: .8em; overflow-x: auto; font-size: .8em; }
pre.wrap { white-space: pre-wrap; overflow-wrap: anywhere; }
@media (max-width: 600px) {
  body { margin: 1em auto; padding: 0 .75em; }
  h1 { font-size: 1.6em; }
  nav ol { columns: 1; }
  table.table td:first-child { white-space: normal; min-width: 9em; max-width: 50vw; }
}
{{ table_css }}
</style>
</head>
<body>
<h1>{{ title }}</h1>
<p>{{ subtitle }}</p>
<nav><ol>{% for s in sections %}<li><a href="#{{ s.anchor }}">{{ s.title }}</a></li>{% endfor %}
</ol></nav>
{% for s in sections %}
<section id="{{ s.anchor }}">
<h2>{{ s.title }}</h2>
{% if s.text %}<p>{{ s.text }}</p>{% endif %}
{% for note in s.notes %}<p class="note">{{ note }}</p>
{% endfor %}
{% for t in s.tables %}<p class="caption" id="table-{{ t.number }}"><b>Table {{ t.number }}.</b> {{ t.caption }}
{% if t.files %}(<a href="{{ t.files.csv }}">CSV</a>, <a href="{{ t.files.tex }}">LaTeX</a>){% endif %}</p>
<div class="scroll">{{ t.html }}</div>
{% endfor %}
{% for f in s.figures %}<figure id="figure-{{ f.number }}">
<img src="data:image/png;base64,{{ f.base64 }}" alt="{{ f.caption }}">
<figcaption><b>Figure {{ f.number }}.</b> {{ f.caption }} (<a href="{{ f.file }}">{{ f.file }}</a>)</figcaption>
</figure>
{% endfor %}
{% for p in s.pre %}<details{% if loop.first %} open{% endif %}><summary>{{ p.title }}</summary>
<pre{% if p.wrap %} class="wrap"{% endif %}>{{ p.text }}</pre></details>
{% endfor %}
</section>
{% endfor %}
</body>
</html>
"""

MARKDOWN = """# {{ title }}

{{ subtitle }}
{% for s in sections %}

## {{ s.title }}
{% if s.text %}

{{ s.text }}
{% endif %}
{% for note in s.notes %}

> **Note.** {{ note }}
{% endfor %}
{% for t in s.tables %}

**Table {{ t.number }}.** {{ t.caption }}

{{ t.markdown }}
{% endfor %}
{% for f in s.figures %}

![Figure {{ f.number }}: {{ f.caption }}]({{ f.file | link }})

*Figure {{ f.number }}.* {{ f.caption }}
{% endfor %}
{% for p in s.pre %}

**{{ p.title }}**

{{ p.text | fenced }}
{% endfor %}
{% endfor %}
"""


def markdown_environment() -> jinja2.Environment:
    """The Jinja2 environment of ``MARKDOWN``: every ``{{ expression }}`` escaped for
    Markdown (``escape.markdown_finalize``; rendered tables are ``escape.Markdown`` and
    pass as they are), with the filters ``link`` (a figure's path) and ``fenced`` (a
    verbatim block).

    Examples
    --------
    >>> from acceptability.reports.templates import markdown_environment
    >>> print(markdown_environment().from_string("# {{ title }}").render(title="<b>x|y</b>"))
    # &lt;b>x\\|y&lt;/b>
    """
    env = jinja2.Environment(autoescape=False, undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True, finalize=markdown_finalize)
    env.filters.update(link=markdown_link, fenced=fenced)
    return env
