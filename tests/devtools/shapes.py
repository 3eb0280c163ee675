"""The same resume and the same job posting written in many real-world shapes, truth known.

The real corpora are few and the code is tried on files from elsewhere, so each
document here is one fixed content written every way it is met in practice, and the
truth is known by construction (what was written in), not read off a file:

- **Resumes**: the contact block on the left, right-aligned, centred, in a table, or
  in a sidebar; the name as the header or only in a "Name:" line; personal details
  (birth date, gender, nationality, marital status, father's name) absent, on one
  line, or one per line; headings in capitals, Title Case, bold or with a colon;
  bullets •, -, *, ▪ or numbers; written as plain text, Markdown, a PDF printed by
  WeasyPrint from HTML (one column, two columns, a sidebar) and a Word file
  (python-docx). Four fictional people of different origins.
- **Postings**: the required and preferred headings in the shapes postings use
  ("Minimum qualifications:", "Requirements (required)", "## ...", bold, capitals,
  numbered, Title Case with no colon...), bullets •, -, --, *, ▪, numbers, with or
  without YAML/TOML front matter, as text, Markdown, HTML, a PDF (WeasyPrint) or a
  Word file, with a duties list, benefits and an equal-opportunity line around them.

`resume_shapes()` / `posting_shapes()` list the shapes; `render_resume` /
`render_posting` write one as (file name, bytes) with its truth. Used by
tests/test_generated_shapes.py and benchmarks/extract_identity.py / job_checklist.py.
"""

from __future__ import annotations

import io
import itertools
import re
from dataclasses import dataclass, field
from html import escape

# -- people --------------------------------------------------------------------------


@dataclass(frozen=True)
class Person:
    name: str
    email: str
    phone: str
    address: str
    link: str
    birth: str
    gender: str
    nationality: str
    marital: str
    father: str
    college: str


PEOPLE = (
    Person(
        "Daniel Kowalski",
        "daniel.kowalski@example.org",
        "(312) 555-0147",
        "48 Linden Avenue, Evanston, IL 60201",
        "linkedin.com/in/dkowalski",
        "12 March 1994",
        "Male",
        "Polish",
        "Single",
        "Tomasz Kowalski",
        "Northwestern University",
    ),
    Person(
        "Aisha Bello",
        "aisha.bello@example.com",
        "+44 20 7946 0958",
        "22 Baker Street, London, NW1 6XE, United Kingdom",
        "github.com/aishabello",
        "04/11/1996",
        "Female",
        "Nigerian",
        "Married",
        "Ibrahim Bello",
        "University of Manchester",
    ),
    Person(
        "Rohan Mehta",
        "rohan.mehta@example.net",
        "+91 98765 43210",
        "14 MG Road, Bengaluru, Karnataka 560001, India",
        "https://rohanmehta.example.net",
        "1995-07-23",
        "Male",
        "Indian",
        "Single",
        "Suresh Mehta",
        "University of Mumbai",
    ),
    Person(
        "Lucía Fernández",
        "lucia.fernandez@example.es",
        "+34 612 345 678",
        "Calle Mayor 12, 28013 Madrid, Spain",
        "linkedin.com/in/luciafernandez",
        "30 de enero de 1992",
        "Female",
        "Spanish",
        "Single",
        "Javier Fernández",
        "Universidad Complutense de Madrid",
    ),
    Person(
        "Nguyễn Thị Mai",
        "mai.nguyen@example.vn",
        "+84 912 345 678",
        "25 Tran Hung Dao, Hoan Kiem, Hanoi 100000, Vietnam",
        "linkedin.com/in/nguyenthimai",
        "05/09/1993",
        "Female",
        "Vietnamese",
        "Married",
        "Nguyễn Văn Hùng",
        "Vietnam National University",
    ),
    Person(
        "Oluwaseun Adeyemi-Okoro",
        "seun.adeyemi@example.ng",
        "+234 803 555 0192",
        "7 Adeola Odeku Street, Victoria Island, Lagos 101241, Nigeria",
        "github.com/seunadeyemi",
        "18 August 1990",
        "Male",
        "Nigerian",
        "Married",
        "Babatunde Adeyemi",
        "University of Lagos",
    ),
    Person(
        "Siobhán O'Connell",
        "siobhan.oconnell@example.ie",
        "+353 87 555 0143",
        "9 Harcourt Street, Dublin 2, D02 XY45, Ireland",
        "linkedin.com/in/siobhanoconnell",
        "2 February 1997",
        "Female",
        "Irish",
        "Single",
        "Declan O'Connell",
        "Trinity College Dublin",
    ),
    Person(
        "Xiaoling Zhou",
        "xiaoling.zhou@example.cn",
        "+86 138 0013 8000",
        "88 Century Avenue, Pudong, Shanghai 200120, China",
        "https://zhouxiaoling.example.cn",
        "1991-11-30",
        "Female",
        "Chinese",
        "Single",
        "Zhou Wei",
        "Fudan University",
    ),
)

EXPERIENCE = (
    (
        "Operations Analyst, Harbor Logistics",
        "2020 - 2024",
        [
            "Built weekly Excel models that cut late deliveries by 18%",
            "Wrote SQL reports for the warehouse team",
            "Trained four new analysts",
        ],
    ),
    (
        "Junior Analyst, Copperleaf Retail",
        "2018 - 2020",
        ["Reconciled inventory across 12 stores", "Automated stock counts with Python"],
    ),
)
SKILLS = "Excel, SQL, Python, Tableau"


# -- resume shapes ---------------------------------------------------------------------

# "row": the address, the name and the phone side by side on one line (a centred name
# between a left and a right-aligned block, read in one line of text)
CONTACTS = ("left", "right", "centred", "table", "sidebar", "row")
PERSONALS = ("none", "one_line", "lines")
NAMES = ("header", "label")
HEADINGS = ("caps", "title", "bold", "colon")
BULLETS = ("\u2022", "-", "*", "\u25aa", "1.")
RESUME_PRODUCERS = ("txt", "md", "pdf", "docx")


@dataclass(frozen=True)
class ResumeShape:
    person: int
    contact: str
    personal: str
    name: str
    heading: str
    bullet: str
    producer: str

    @property
    def id(self) -> str:
        bullet = {"\u2022": "dot", "-": "dash", "*": "star", "\u25aa": "square", "1.": "num"}
        return (
            f"p{self.person}-{self.contact}-{self.personal}-{self.name}-{self.heading}-"
            f"{bullet[self.bullet]}-{self.producer}"
        )


@dataclass
class ResumeTruth:
    name: str
    email: str
    phone: str
    address: str
    links: list[str]
    personal: list[str] = field(default_factory=list)  # values that must never be sent

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "email": self.email,
            "phone": self.phone,
            "address": self.address,
            "links": self.links,
            "colleges": [],
        }


def resume_shapes(producers: tuple[str, ...] = RESUME_PRODUCERS) -> list[ResumeShape]:
    """Every combination for text producers; for PDF and Word every contact, personal
    and name placement with the heading, bullet and person turning over (a Latin
    square), so that each value of each dimension is met without the full product."""
    out = []
    combos = list(itertools.product(CONTACTS, PERSONALS, NAMES))
    for producer in producers:
        if producer in ("txt", "md"):
            for i, (contact, personal, name, heading, bullet) in enumerate(
                itertools.product(CONTACTS, PERSONALS, NAMES, HEADINGS, BULLETS)
            ):
                out.append(
                    ResumeShape(i % len(PEOPLE), contact, personal, name, heading, bullet, producer)
                )
        else:
            for i, (contact, personal, name) in enumerate(combos * 2):
                out.append(
                    ResumeShape(
                        i % len(PEOPLE),
                        contact,
                        personal,
                        name,
                        HEADINGS[i % len(HEADINGS)],
                        BULLETS[(i // 2) % len(BULLETS)],
                        producer,
                    )
                )
    return out


def _heading(text: str, style: str, markdown: bool) -> str:
    if style == "caps":
        return text.upper()
    if style == "bold":
        return f"**{text}**" if markdown else text
    if style == "colon":
        return f"{text}:"
    return text


def _bullet(style: str, n: int) -> str:
    return f"{n}." if style == "1." else style


BIRTH_LABELS = ("Date of Birth", "DOB ", "Born ", "D.O.B.", "Date of birth ")


def _field(label: str, value: str, wide: bool = False) -> str:
    """ "Label: value" ("Label : value" in a one-line block), or "Label value" for a
    label that ends in a space."""
    if label.endswith(" "):
        return f"{label}{value}"
    return f"{label}{' : ' if wide else ': '}{value}"


def _personal_fields(p: Person, shape: ResumeShape) -> list[tuple[str, str]]:
    fields = []
    if shape.name == "label":
        fields.append(("Name", p.name))
    if shape.personal != "none":
        fields += [
            # the label as resumes write it: a trailing space sets the date off by one
            # space only ("DOB 04/11/1996", "Born 12 March 1994")
            (BIRTH_LABELS[shape.person % len(BIRTH_LABELS)], p.birth),
            ("Gender", p.gender),
            ("Nationality", p.nationality),
            ("Marital Status", p.marital),
            ("Father's Name", p.father),
        ]
    return fields


def _truth(p: Person, shape: ResumeShape) -> ResumeTruth:
    personal = [p.birth, p.gender, p.nationality, p.marital, p.father]
    return ResumeTruth(
        p.name,
        p.email,
        p.phone,
        p.address,
        [p.link],
        personal if shape.personal != "none" else [],
    )


def _body_lines(p: Person, shape: ResumeShape, markdown: bool) -> list[str]:
    h = shape.heading
    lines = [_heading("Summary", h, markdown)]
    lines.append("Operations analyst with six years of experience in logistics and retail.")
    lines.append("")
    lines.append(_heading("Experience", h, markdown))
    for title, dates, bullets in EXPERIENCE:
        lines.append(f"{title} | {dates}")
        lines += [f"{_bullet(shape.bullet, i)} {b}" for i, b in enumerate(bullets, 1)]
        lines.append("")
    lines.append(_heading("Education", h, markdown))
    lines.append(f"B.Sc. in Economics, {p.college}, 2018")
    lines.append("")
    lines.append(_heading("Skills", h, markdown))
    lines.append(SKILLS)
    return lines


def _personal_lines(p: Person, shape: ResumeShape, markdown: bool) -> list[str]:
    fields = _personal_fields(p, shape)
    if not fields:
        return []
    head = _heading("Personal Information", shape.heading, markdown)
    if shape.personal == "one_line" or (shape.personal == "none" and shape.name == "label"):
        return [head, " ".join(_field(k, v, wide=True) for k, v in fields), ""]
    return [head, *(_field(k, v) for k, v in fields), ""]


def resume_text(shape: ResumeShape) -> tuple[str, ResumeTruth]:
    """The resume as plain text or Markdown (alignment by spaces, a table by bars)."""
    p = PEOPLE[shape.person]
    markdown = shape.producer == "md"
    contact = [p.email, p.phone, p.address, p.link]
    top: list[str] = []
    if shape.name == "header" and shape.contact != "row":
        top.append(f"# {p.name}" if markdown else p.name)
    if shape.contact == "row":
        middle = p.name if shape.name == "header" else ""
        top += [
            f"{p.address}     {middle}     {p.phone}".replace("          ", "     "),
            p.email,
            p.link,
        ]
    elif shape.contact in ("left", "sidebar"):
        top += contact
    elif shape.contact == "right":
        top += [f"{' ' * 50}{c}" for c in contact]
    elif shape.contact == "centred":
        top += [f"{' ' * 20}{' | '.join(contact[:2])}", f"{' ' * 20}{' | '.join(contact[2:])}"]
    else:  # a table: labels and values
        top += ["| Email | Phone |", "|---|---|"] if markdown else []
        top += [f"| {p.email} | {p.phone} |", f"| {p.address} | {p.link} |"]
    personal = _personal_lines(p, shape, markdown)
    lines = [*top, "", *personal, *_body_lines(p, shape, markdown)]
    if shape.name == "label" and not personal:
        lines.insert(0, f"Name: {p.name}")
    return "\n".join(lines) + "\n", _truth(p, shape)


_CSS = """
body { font-family: 'DejaVu Sans', sans-serif; font-size: 10pt; margin: 0; }
h1 { font-size: 20pt; margin: 0 0 4pt 0; }
h2 { font-size: 12pt; margin: 10pt 0 3pt 0; }
p { margin: 2pt 0; }
.right { text-align: right; }
.centred { text-align: center; }
.cols { display: flex; gap: 18pt; }
.side { width: 32%; background: #eef; padding: 6pt; }
.main { width: 64%; }
table { border-collapse: collapse; }
td { border: 1px solid #999; padding: 2pt 4pt; }
"""


def _html_heading(text: str, style: str) -> str:
    if style == "caps":
        return f"<h2>{escape(text.upper())}</h2>"
    if style == "bold":
        return f"<p><b>{escape(text)}</b></p>"
    if style == "colon":
        return f"<p>{escape(text)}:</p>"
    return f"<h2>{escape(text)}</h2>"


def _html_list(items: list[str], bullet: str) -> str:
    if bullet == "1.":
        return "<ol>" + "".join(f"<li>{escape(i)}</li>" for i in items) + "</ol>"
    if bullet == "\u2022":
        return "<ul>" + "".join(f"<li>{escape(i)}</li>" for i in items) + "</ul>"
    return "".join(f"<p>{escape(bullet)} {escape(i)}</p>" for i in items)


def resume_html(shape: ResumeShape) -> tuple[str, ResumeTruth]:
    p = PEOPLE[shape.person]
    contact = [p.email, p.phone, p.address, p.link]
    h = shape.heading
    name = f"<h1>{escape(p.name)}</h1>" if shape.name == "header" else ""
    if shape.contact == "row":  # address left, name centred, phone right, on one band
        band = (
            f'<div class="cols"><div style="width:33%">{escape(p.address)}</div>'
            f'<div style="width:34%" class="centred"><b>{escape(p.name) if name else ""}</b></div>'
            f'<div style="width:33%" class="right">{escape(p.phone)}</div></div>'
        )
        name = ""
        block = band + f"<p>{escape(p.email)}</p><p>{escape(p.link)}</p>"
    elif shape.contact == "table":
        block = (
            f"<table><tr><td>{escape(p.email)}</td><td>{escape(p.phone)}</td></tr>"
            f"<tr><td>{escape(p.address)}</td><td>{escape(p.link)}</td></tr></table>"
        )
    else:
        cls = {"right": "right", "centred": "centred"}.get(shape.contact, "")
        block = "".join(f'<p class="{cls}">{escape(c)}</p>' for c in contact)
    fields = _personal_fields(p, shape)
    personal = ""
    if fields:
        personal = _html_heading("Personal Information", h)
        if shape.personal == "lines":
            personal += "".join(f"<p>{escape(_field(k, v))}</p>" for k, v in fields)
        else:
            line = " ".join(_field(k, v, wide=True) for k, v in fields)
            personal += f"<p>{escape(line)}</p>"
    body = _html_heading("Summary", h)
    body += "<p>Operations analyst with six years of experience in logistics and retail.</p>"
    body += _html_heading("Experience", h)
    for title, dates, bullets in EXPERIENCE:
        body += f"<p>{escape(title)} | {escape(dates)}</p>" + _html_list(bullets, shape.bullet)
    body += _html_heading("Education", h)
    body += f"<p>B.Sc. in Economics, {escape(p.college)}, 2018</p>"
    skills = _html_heading("Skills", h) + f"<p>{escape(SKILLS)}</p>"
    if shape.contact == "sidebar":
        page = (
            f'{name}<div class="cols"><div class="side">{block}{personal}{skills}</div>'
            f'<div class="main">{body}</div></div>'
        )
    elif shape.contact == "row":
        page = f"{block}{personal}{body}{skills}"
    elif shape.contact == "right":  # the name on the left, the contact block beside it
        page = (
            f'<div class="cols"><div class="main">{name}</div><div class="side right" '
            f'style="background:none">{block}</div></div>{personal}{body}{skills}'
        )
    else:
        page = f"{name}{block}{personal}{body}{skills}"
    html = f"<html><head><style>{_CSS}</style></head><body>{page}</body></html>"
    return html, _truth(p, shape)


def _pdf(html: str) -> bytes:
    from weasyprint import HTML

    data: bytes = HTML(string=html).write_pdf()
    return data


def _docx(shape: ResumeShape) -> tuple[bytes, ResumeTruth]:
    from docx import Document
    from docx.enum.text import WD_ALIGN_PARAGRAPH

    p = PEOPLE[shape.person]
    doc = Document()
    if shape.name == "header" and shape.contact != "row":
        doc.add_heading(p.name, level=0)
    contact = [p.email, p.phone, p.address, p.link]
    if shape.contact == "row":  # one line, tab-separated: address, name, phone
        middle = p.name if shape.name == "header" else ""
        doc.add_paragraph(f"{p.address}\t{middle}\t{p.phone}")
        doc.add_paragraph(p.email)
        doc.add_paragraph(p.link)
    elif shape.contact in ("table", "sidebar"):
        table = doc.add_table(rows=2, cols=2)
        for cell, value in zip((c for row in table.rows for c in row.cells), contact, strict=True):
            cell.text = value
    else:
        align = {
            "right": WD_ALIGN_PARAGRAPH.RIGHT,
            "centred": WD_ALIGN_PARAGRAPH.CENTER,
        }.get(shape.contact, WD_ALIGN_PARAGRAPH.LEFT)
        for c in contact:
            doc.add_paragraph(c).alignment = align
    for line in _personal_lines(p, shape, markdown=False) + _body_lines(p, shape, False):
        if not line:
            continue
        para = doc.add_paragraph()
        run = para.add_run(line)
        run.bold = shape.heading == "bold" and line in {
            "Summary",
            "Experience",
            "Education",
            "Skills",
            "Personal Information",
        }
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue(), _truth(p, shape)


def render_resume(shape: ResumeShape) -> tuple[str, bytes, ResumeTruth]:
    """(file name, bytes, truth) of one resume shape."""
    if shape.producer in ("txt", "md"):
        text, truth = resume_text(shape)
        return f"{shape.id}.{shape.producer}", text.encode("utf-8"), truth
    if shape.producer == "pdf":
        html, truth = resume_html(shape)
        return f"{shape.id}.pdf", _pdf(html), truth
    data, truth = _docx(shape)
    return f"{shape.id}.docx", data, truth


# -- posting shapes --------------------------------------------------------------------

REQUIRED = (
    "Bachelor's degree in business, economics or a related field",
    "3+ years of experience in operations or supply chain analysis",
    "Advanced Excel, including pivot tables and lookups",
    "Working knowledge of SQL",
    "Excellent written and verbal communication skills",
)
PREFERRED = (
    "Experience with Tableau or Power BI",
    "Familiarity with warehouse management systems",
    "Spanish language skills",
)
DUTIES = (
    "Build weekly reports on delivery performance",
    "Work with the warehouse team to find delays",
    "Present findings to the operations manager",
)
BENEFITS = ("Health, dental and vision insurance", "401(k) with a 4% match", "Paid time off")

# (required heading, preferred heading, how they are marked)
POSTING_HEADINGS = (
    ("Requirements", "Nice to have", "plain"),
    ("Minimum qualifications", "Preferred qualifications", "colon"),
    ("Minimum Qualifications (required)", "Preferred Qualifications (preferred)", "markdown"),
    ("Requirements (required)", "Bonus points", "colon"),
    ("What you'll bring", "Bonus points", "bold"),
    ("Requirements", "Preferred", "caps"),
    ("Qualifications", "Desired Skills", "numbered"),
    ("What we're looking for", "Even better", "colon"),
    ("Basic Qualifications", "Preferred Qualifications", "markdown"),
    ("Required Skills", "Good to have", "plain"),
)
DUTY_HEADINGS = ("Responsibilities", "What you'll do", "Description", "Duties")


@dataclass(frozen=True)
class Posting:
    title: str
    about: str
    required: tuple[str, ...]
    preferred: tuple[str, ...]
    duties: tuple[str, ...]


POSTINGS = (
    Posting(
        "Operations Analyst",
        "Harbor Logistics moves freight for 400 shops.",
        REQUIRED,
        PREFERRED,
        DUTIES,
    ),
    Posting(
        "Registered Nurse, Medical-Surgical Unit",
        "Lakeview Community Hospital is a 220-bed teaching hospital.",
        (
            "Current RN license in the state of Ohio",
            "BLS certification from the American Heart Association",
            "Two years of acute care nursing experience",
            "Ability to lift 50 pounds and stand for 12-hour shifts",
        ),
        ("BSN degree", "Experience with Epic charting"),
        (
            "Assess, plan and document patient care",
            "Give medications and monitor their effects",
            "Teach patients and families before discharge",
        ),
    ),
)
POSTING_BULLETS = ("\u2022", "-", "--", "*", "\u25aa", "1.")
FRONT_MATTERS = ("none", "yaml", "toml")
POSTING_PRODUCERS = ("txt", "md", "html", "pdf", "docx")


@dataclass(frozen=True)
class PostingShape:
    headings: int  # index into POSTING_HEADINGS
    duties: str
    bullet: str
    front_matter: str
    producer: str
    content: int = 0  # index into POSTINGS
    duties_last: bool = False  # the duties after the qualifications

    @property
    def id(self) -> str:
        bullet = {
            "\u2022": "dot",
            "-": "dash",
            "--": "ddash",
            "*": "star",
            "\u25aa": "square",
            "1.": "num",
        }
        duty = self.duties.lower().replace(" ", "").replace("'", "")
        order = "dl" if self.duties_last else "df"
        return (
            f"c{self.content}-h{self.headings}-{duty}-{order}-{bullet[self.bullet]}-"
            f"{self.front_matter}-{self.producer}"
        )


def posting_shapes(producers: tuple[str, ...] = POSTING_PRODUCERS) -> list[PostingShape]:
    """Every heading style with every bullet for each producer; the duties heading and
    the front matter turn over (front matter only where a file may carry it)."""
    out = []
    for producer in producers:
        for i, (h, bullet) in enumerate(
            itertools.product(range(len(POSTING_HEADINGS)), POSTING_BULLETS)
        ):
            fm = FRONT_MATTERS[i % 3] if producer in ("txt", "md") else "none"
            duty = DUTY_HEADINGS[i % len(DUTY_HEADINGS)]
            out.append(PostingShape(h, duty, bullet, fm, producer, i % 2, (i // 2) % 2 == 1))
    return out


def _posting_heading(text: str, style: str, number: int) -> str:
    if style == "colon":
        return f"{text}:"
    if style == "markdown":
        return f"## {text}"
    if style == "bold":
        return f"**{text}**"
    if style == "caps":
        return text.upper()
    if style == "numbered":
        return f"{number}. {text}"
    return text


def posting_text(shape: PostingShape) -> tuple[str, dict[str, list[str]]]:
    req_h, pref_h, style = POSTING_HEADINGS[shape.headings]
    sub_bullet = "-" if shape.bullet == "1." and style == "numbered" else shape.bullet

    def items(values: tuple[str, ...]) -> list[str]:
        return [f"{_bullet(sub_bullet, i)} {v}" for i, v in enumerate(values, 1)]

    post = POSTINGS[shape.content]
    lines = []
    if shape.front_matter == "yaml":
        lines += ["---", f'title: "{post.title}"', "location: Chicago, IL", "---", ""]
    elif shape.front_matter == "toml":
        lines += ["+++", f'title = "{post.title}"', 'location = "Chicago, IL"', "+++", ""]
    lines += [post.title, "", post.about, ""]
    duties = [_posting_heading(shape.duties, style, 3 if shape.duties_last else 1)]
    duties += [*items(post.duties), ""]
    first = 1 if shape.duties_last else 2
    quals = [_posting_heading(req_h, style, first), *items(post.required), ""]
    quals += [_posting_heading(pref_h, style, first + 1), *items(post.preferred), ""]
    lines += [*quals, *duties] if shape.duties_last else [*duties, *quals]
    lines += [_posting_heading("Benefits", style, 4), *items(BENEFITS), ""]
    lines.append("We are an equal opportunity employer.")
    truth = {"required": list(post.required), "preferred": list(post.preferred)}
    return "\n".join(lines) + "\n", truth


def posting_html(shape: PostingShape) -> str:
    req_h, pref_h, style = POSTING_HEADINGS[shape.headings]

    def head(text: str) -> str:
        if style == "bold":
            return f"<p><strong>{escape(text)}</strong></p>"
        if style == "caps":
            return f"<p>{escape(text.upper())}</p>"
        if style == "colon":
            return f"<p>{escape(text)}:</p>"
        return f"<h3>{escape(text)}</h3>"

    def items(values: tuple[str, ...]) -> str:
        if shape.bullet in ("\u2022", "1."):
            tag = "ol" if shape.bullet == "1." else "ul"
            return f"<{tag}>" + "".join(f"<li>{escape(v)}</li>" for v in values) + f"</{tag}>"
        return "".join(f"<p>{escape(shape.bullet)} {escape(v)}</p>" for v in values)

    post = POSTINGS[shape.content]
    duties = f"{head(shape.duties)}{items(post.duties)}"
    quals = f"{head(req_h)}{items(post.required)}{head(pref_h)}{items(post.preferred)}"
    body = quals + duties if shape.duties_last else duties + quals
    return (
        f"<html><head><style>{_CSS}</style></head><body><h1>{escape(post.title)}</h1>"
        f"<p>{escape(post.about)}</p>{body}{head('Benefits')}{items(BENEFITS)}"
        "<p>We are an equal opportunity employer.</p></body></html>"
    )


def _posting_docx(shape: PostingShape) -> bytes:
    from docx import Document

    text, _ = posting_text(shape)
    doc = Document()
    for line in text.splitlines():
        if not line.strip():
            continue
        bold = line.startswith("**") and line.endswith("**")
        run = doc.add_paragraph().add_run(line.strip("*") if bold else line)
        run.bold = bold
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def render_posting(shape: PostingShape) -> tuple[str, bytes, dict[str, list[str]]]:
    """(file name, bytes, truth) of one posting shape."""
    text, truth = posting_text(shape)
    if shape.producer in ("txt", "md"):
        return f"{shape.id}.{shape.producer}", text.encode("utf-8"), truth
    if shape.producer == "html":
        return f"{shape.id}.txt", posting_html(shape).encode("utf-8"), truth
    if shape.producer == "pdf":
        return f"{shape.id}.pdf", _pdf(posting_html(shape)), truth
    return f"{shape.id}.docx", _posting_docx(shape), truth


def normalise(item: str) -> str:
    """An item as compared with the truth: words only, lower case."""
    return " ".join(re.findall(r"[\w+#']+", item.lower()))


# -- text-layer shapes: words set apart by real producers --------------------------------

# Words ending in "m" before another word (unseen resumes glued 172 such pairs, issue 23),
# and others, so a producer or font that glues only after some letters shows it.
GLUE_TEXT = (
    "Worked as team lead from Cabinet office on the classroom management program with a "
    "system for product teams: from design to platform, item by item, form after form, the "
    "program team made them random and seldom slow."
)
GLUE_FONTS = (
    "Carlito", "Liberation Sans", "Liberation Serif", "DejaVu Sans", "DejaVu Serif",
    "Nimbus Sans", "Nimbus Roman", "URW Gothic", "C059", "P052", "URW Bookman",
)  # fmt: skip
GLUE_PRODUCERS = ("weasyprint", "chromium", "libreoffice", "pdflatex")
# (align, letter spacing, word spacing); LaTeX and LibreOffice take the nearest they have
GLUE_SETTINGS = (
    ("left", "normal", "normal"),
    ("justify", "normal", "normal"),
    ("justify", "0.03em", "normal"),
    ("justify", "-0.02em", "-0.05em"),
    ("left", "0.05em", "0.15em"),
)
_LATEX_FONTS = {
    "cm": "",
    "times": r"\usepackage{mathptmx}",
    "helvet": r"\usepackage[scaled]{helvet}\renewcommand{\familydefault}{\sfdefault}",
    "palatino": r"\usepackage{mathpazo}",
    "charter": r"\usepackage{charter}",
    "bookman": r"\usepackage{bookman}",
    "avant": r"\usepackage{avant}\renewcommand{\familydefault}{\sfdefault}",
}


@dataclass(frozen=True)
class GlueShape:
    producer: str
    font: str

    @property
    def id(self) -> str:
        return f"glue-{self.producer}-{self.font.replace(' ', '_')}"


def glue_shapes(producers: tuple[str, ...] = GLUE_PRODUCERS) -> list[GlueShape]:
    """One shape per producer and font; each page carries every setting at two sizes."""
    out = []
    for producer in producers:
        fonts = tuple(_LATEX_FONTS) if producer == "pdflatex" else GLUE_FONTS
        out += [GlueShape(producer, font) for font in fonts]
    return out


def glue_producer_available(producer: str) -> bool:
    import shutil

    tool = {"chromium": "chromium", "libreoffice": "soffice", "pdflatex": "pdflatex"}
    return producer == "weasyprint" or shutil.which(tool[producer]) is not None


def _glue_html(font: str) -> str:
    paras = [
        f'<p style="text-align:{align};letter-spacing:{ls};word-spacing:{ws};'
        f'font-size:{size};width:15cm">{GLUE_TEXT}</p>'
        for align, ls, ws in GLUE_SETTINGS
        for size in ("9pt", "11.5pt")
    ]
    return (
        f'<html><head><meta charset="utf-8"><style>body{{font-family:"{font}"}}</style>'
        f"</head><body>{''.join(paras)}</body></html>"
    )


def _glue_docx(font: str) -> bytes:
    from docx import Document
    from docx.enum.text import WD_ALIGN_PARAGRAPH
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn
    from docx.shared import Pt

    doc = Document()
    for align, ls, _ws in GLUE_SETTINGS:
        for size in (9, 11.5):
            para = doc.add_paragraph()
            para.alignment = (
                WD_ALIGN_PARAGRAPH.JUSTIFY if align == "justify" else WD_ALIGN_PARAGRAPH.LEFT
            )
            run = para.add_run(GLUE_TEXT)
            run.font.name = font
            run.font.size = Pt(size)
            if ls != "normal":  # letter spacing in twentieths of a point
                spacing = OxmlElement("w:spacing")
                spacing.set(qn("w:val"), str(round(float(ls[:-2]) * size * 20)))
                run._element.get_or_add_rPr().append(spacing)
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def _glue_latex(font: str) -> str:
    blocks = [
        rf"\begin{{minipage}}{{{width}}}{size} {GLUE_TEXT}\end{{minipage}}\par\medskip"
        for width in ("16cm", "9cm", "6cm")
        for size in (r"\small", r"\large")
    ]
    return (
        rf"\documentclass{{article}}\usepackage[T1]{{fontenc}}{_LATEX_FONTS[font]}"
        rf"\usepackage[margin=1cm]{{geometry}}\begin{{document}}{''.join(blocks)}\end{{document}}"
    )


def _run_tool(args: list[str], cwd: str) -> None:
    import subprocess

    subprocess.run(args, cwd=cwd, check=True, capture_output=True, timeout=120)


def render_glue(shape: GlueShape) -> tuple[str, bytes, int]:
    """(file name, PDF bytes, how many times GLUE_TEXT is on the page)."""
    import tempfile
    from pathlib import Path

    if shape.producer == "weasyprint":
        return f"{shape.id}.pdf", _pdf(_glue_html(shape.font)), 2 * len(GLUE_SETTINGS)
    with tempfile.TemporaryDirectory(prefix="ra-glue-") as tmp:
        folder = Path(tmp)
        if shape.producer == "chromium":
            (folder / "page.html").write_text(_glue_html(shape.font), encoding="utf-8")
            _run_tool(
                [
                    "chromium", "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", "--no-first-run", f"--user-data-dir={folder / 'profile'}",
                    "--no-pdf-header-footer", f"--print-to-pdf={folder / 'page.pdf'}",
                    (folder / "page.html").as_uri(),
                ],
                tmp,
            )  # fmt: skip
            copies = 2 * len(GLUE_SETTINGS)
        elif shape.producer == "libreoffice":
            (folder / "page.docx").write_bytes(_glue_docx(shape.font))
            _run_tool(
                [
                    "soffice", f"-env:UserInstallation={(folder / 'profile').as_uri()}",
                    "--headless", "--convert-to", "pdf", "--outdir", tmp, "page.docx",
                ],
                tmp,
            )  # fmt: skip
            copies = 2 * len(GLUE_SETTINGS)
        else:
            (folder / "page.tex").write_text(_glue_latex(shape.font), encoding="utf-8")
            _run_tool(["pdflatex", "-interaction=batchmode", "page.tex"], tmp)
            copies = 6
        return f"{shape.id}.pdf", (folder / "page.pdf").read_bytes(), copies


def glue_pairs() -> list[str]:
    """The word pairs of GLUE_TEXT (punctuation dropped), each to be found apart."""
    words = re.findall(r"[A-Za-z]+", GLUE_TEXT)
    return [f"{a} {b}" for a, b in itertools.pairwise(words)]
