import os,sys,gzip,re,html
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(s): super().__init__(); s.out=[]; s.skip=0
    def handle_starttag(s,t,a):
        if t in('script','style'): s.skip+=1
        if t in('p','div','li','h1','h2','h3','pre','tr','br','dd','dt'): s.out.append('\n')
    def handle_endtag(s,t):
        if t in('script','style') and s.skip: s.skip-=1
    def handle_data(s,d):
        if not s.skip: s.out.append(d)
roots=sys.argv[2:]
o=open(sys.argv[1],'w')
n=0
for root in roots:
    for dp,dn,fn in os.walk(root):
        for f in fn:
            p=os.path.join(dp,f)
            try:
                raw=open(p,'rb').read()
                if f.endswith('.gz'): raw=gzip.decompress(raw); f=f[:-3]
                t=raw.decode('utf-8','replace')
            except Exception: continue
            if f.endswith(('.html','.htm')):
                pp=P(); pp.feed(t); t=''.join(pp.out)
            elif f.endswith(('.txt','.md','.rst','.pod','.adoc')) or re.search(r'\.\d[a-z]*$',f) or 'man' in dp:
                t=re.sub(r'^\.[A-Za-z]+ ?','',t,flags=re.M) # roff macros
                t=re.sub(r'\\f[BIRP]','',t)
            else: continue
            o.write(t+'\n'); n+=len(t)
print(n)
