#!/usr/bin/env python3
"""Fills unfinished messages of a Qt .ts file from a JSON dictionary {source: translation}.

Usage: scripts/fill_ts.py translations/perwiz_ja.ts DICT.json
Sources are matched after XML unescaping; plural (numerus) messages get one form. Prints the
sources still unfinished, so a translator sees what is left.
"""
import html
import json
import re
import sys

ts_path, dict_path = sys.argv[1], sys.argv[2]
text = open(ts_path, encoding="utf-8").read()
table = json.load(open(dict_path, encoding="utf-8"))

msg_re = re.compile(r'(<message(?: numerus="yes")?>\s*<source>)([^<]*)(</source>(?:(?!</message>).)*?)(<translation type="unfinished">)(.*?)(</translation>)', re.S)

def esc(s):
    return html.escape(s, quote=False).replace("'", "&apos;").replace('"', "&quot;")

left = []
def fill(m):
    source = html.unescape(m.group(2))
    if source not in table:
        left.append(source)
        return m.group(0)
    tr = esc(table[source])
    body = m.group(5)
    if "<numerusform>" in body:
        body = re.sub(r"<numerusform>.*?</numerusform>", "<numerusform>" + tr + "</numerusform>", body, flags=re.S)
    else:
        body = tr
    return m.group(1) + m.group(2) + m.group(3) + "<translation>" + body + m.group(6)

text = msg_re.sub(fill, text)
open(ts_path, "w", encoding="utf-8").write(text)
for s in left:
    print("unfinished:", s)
